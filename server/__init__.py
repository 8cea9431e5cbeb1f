"""gradwalk's shells: the FastAPI app and the command line. They translate, the engine computes."""
