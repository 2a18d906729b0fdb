#!/usr/bin/python3
"""Training speed of the thesis ANN and CNN in PyTorch on CPU, for comparison
with dchess's Gorgonia loop (BenchmarkTrainStep in pipeline/). Same work: batch
256, float32, in-memory batches of random signed piece codes scaled to [-1, 1],
random win-probability targets, sigmoid + MSE, Adam(lr 0.001).
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

    for _ in range(20):  # warm-up
        step()
    steps, start, cpu = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        step()
        steps += 1
    return steps * batch / (time.perf_counter() - start), (time.process_time() - cpu) * 1000 / steps


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--seconds", type=float, default=5)
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    for name, model, shape in (("ann", ann(), (64,)), ("cnn", cnn(), (1, 8, 8))):
        rate, cpu_ms = bench(model, shape, a.seconds)
        print(name, round(rate), round(cpu_ms, 3))


if __name__ == "__main__":
    main()
