"""The stepper: forward and reverse-mode passes as generators of typed events."""
