#!/usr/bin/python3
"""Training speed of the thesis ANN and CNN in PyTorch on CPU, for comparison
with dchess's Gorgonia loop (BenchmarkTrainStep in pipeline/train/). Same work: batch
256, float32, in-memory batches of random signed piece codes scaled to [-1, 1],
random win-probability targets, sigmoid + MSE, Adam(lr 0.001).
And the NNUE of configs/nnue.yaml without its pairwise product (nnue,
BenchmarkTrainStep in models/nnue/) and with it (nnue-pairwise,
BenchmarkTrainStepPairwise): an EmbeddingBag sum over each view's active
features (26 of 768 per view, as many as the Go side), clipped ReLU, 512 -> 32
-> 1 or each view's halves multiplied and 256 -> 32 -> 1, batch 1024, forward
and backward only, as the Go benchmark (the loop's Adam lives in pipeline/train/).
Usage: train_torch.py [--threads N] [--seconds S]; prints one line per model:
<model> <samples/s> <CPU ms per step>. The CPU time (all threads) is steadier
than samples/s on a loaded machine."""
import argparse
import time

import torch
from torch import nn


def ann():
    return nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))


def cnn():
    # conv 13 3x3 pad 1 (8x8) -> pool 3 stride 1 (6x6) -> conv 10 3x3 pad 1 -> pool 2 stride 2 (3x3) -> FC 90 -> 1
    return nn.Sequential(
        nn.Conv2d(1, 13, 3, padding=1), nn.ReLU(), nn.MaxPool2d(3, stride=1),
        nn.Conv2d(13, 10, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2, stride=2),
        nn.Flatten(), nn.Linear(90, 1))


def bench(model, shape, seconds, batch=256):
    g = torch.Generator().manual_seed(1)
    x = (torch.randint(-7, 8, (batch,) + shape, generator=g).float() / 7)
    y = torch.rand(batch, 1, generator=g)
    opt = torch.optim.Adam(model.parameters(), lr=0.001)
    loss_fn = nn.MSELoss()

    def step():
        opt.zero_grad()
        loss = loss_fn(torch.sigmoid(model(x)), y)
        loss.backward()
        opt.step()

    return timed(step, seconds, batch, warmup=20)


def timed(step, seconds, batch, warmup):
    """Runs step for about seconds after warmup steps: samples/s and CPU ms per step."""
    for _ in range(warmup):
        step()
    steps, start, cpu = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        step()
        steps += 1
    return steps * batch / (time.perf_counter() - start), (time.process_time() - cpu) * 1000 / steps


class NNUE(nn.Module):
    """768 -> n per view (one table for both, index 0 an empty slot), clipped ReLU, 2n -> 32 -> 1;
    with pairwise each view's halves multiplied first, n -> 32 -> 1."""

    def __init__(self, n=256, hidden=32, pairwise=False):
        super().__init__()
        self.pairwise = pairwise
        self.ft = nn.EmbeddingBag(769, n, mode="sum", padding_idx=0)
        self.ft_bias = nn.Parameter(torch.zeros(n))
        self.l1 = nn.Linear(n if pairwise else 2 * n, hidden)
        self.out = nn.Linear(hidden, 1)

    def view(self, idx):
        x = torch.clamp(self.ft(idx) + self.ft_bias, 0, 1)
        if self.pairwise:
            h = x.shape[1] // 2
            x = x[:, :h] * x[:, h:]
        return x

    def forward(self, us, them):
        return self.out(torch.clamp(self.l1(torch.cat([self.view(us), self.view(them)], 1)), 0, 1))


def bench_nnue(seconds, pairwise=False, batch=1024, slots=32, pieces=26):
    g = torch.Generator().manual_seed(1)
    model = NNUE(pairwise=pairwise)

    def view():
        idx = torch.zeros(batch, slots, dtype=torch.long)
        for r in range(batch):
            squares = torch.randperm(64, generator=g)[:pieces]
            kinds = torch.randint(0, 12, (pieces,), generator=g)
            idx[r, :pieces] = 1 + kinds * 64 + squares
        return idx

    us, them = view(), view()
    y = torch.rand(batch, 1, generator=g)

    def step():
        model.zero_grad()
        loss = ((torch.sigmoid(model(us, them)) - y) ** 2).mean()
        loss.backward()

    return timed(step, seconds, batch, warmup=5)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--seconds", type=float, default=5)
    p.add_argument("--models", default="ann,cnn,nnue,nnue-pairwise", help="comma-separated: ann, cnn, nnue, nnue-pairwise")
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    models = a.models.split(",")
    for name, model, shape in (("ann", ann(), (64,)), ("cnn", cnn(), (1, 8, 8))):
        if name in models:
            rate, cpu_ms = bench(model, shape, a.seconds)
            print(name, round(rate), round(cpu_ms, 3))
    for name, pairwise in (("nnue", False), ("nnue-pairwise", True)):
        if name in models:
            rate, cpu_ms = bench_nnue(a.seconds, pairwise)
            print(name, round(rate), round(cpu_ms, 3))


if __name__ == "__main__":
    main()
