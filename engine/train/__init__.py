"""Training (issue 15, section 2): a program's leaves are its parameters, trained by SGD,
momentum or Adam on a tape compiled once. See engine/train/loop.py."""
from gradwalk.engine.train.config import TrainConfig, TrainLimits
from gradwalk.engine.train.loop import iterations, train

__all__ = ["TrainConfig", "TrainLimits", "iterations", "train"]
