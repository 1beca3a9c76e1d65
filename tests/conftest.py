"""Shared test settings."""

import torch

# One torch thread, as the CLIs use: models play small batches, and several OpenMP
# threads slow them down badly when another process holds the other core.
torch.set_num_threads(1)
