#!/usr/bin/python3
"""Training speed in PyTorch on CPU, for comparison with dchess's Gorgonia loop
(BenchmarkTrainStepWorkers in pipeline/train/): one training step (forward,
backward, optimizer) on in-memory batches, the models and optimizers of the
configs named below.

- ann, cnn: the thesis networks (configs/ann.yaml, cnn.yaml), batch 256 of random
  signed piece codes scaled to [-1, 1], random win-probability targets, sigmoid +
  MSE, Adam(lr 0.001).
- nnue: configs/nnue.yaml's network, an EmbeddingBag sum over each view's active
  features (26 of 768 per view, as the Go side), clipped ReLU, each view's halves
  multiplied (pairwise), 256 -> 32 -> 1, batch 1024, Adam(lr 0.001).
- policy-small, diffusion-small: the transformer of configs/policy-small.yaml and
  diffusion-small.yaml as models/transformer builds it: width 64, 2 pre-norm blocks
  of 2-head bidirectional attention (q, k, v without bias) and a 256-wide ReLU MLP,
  a final layer norm, a 26-word state head over every state token and a 1,968-move
  action head over every action token; sequences of horizon 1 (71 tokens) and 4
  (284 tokens), the first action's logits masked to ~30 legal moves, per-slot
  cross-entropy weighted per slot and summed per row; batch 128, AdamW(lr 3e-4,
  weight decay 0.01) after clipping the gradients' norm to 1.

Usage: train_torch.py [--threads N] [--seconds S] [--models LIST]; prints one line
per model: <model> <samples/s> <CPU ms per step>. The CPU time (all threads) is
steadier than samples/s on a loaded machine."""
import argparse
import math
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
    """768 -> n per view (one table for both, index 0 an empty slot), clipped ReLU,
    each view's halves multiplied, n -> 32 -> 1."""

    def __init__(self, n=256, hidden=32):
        super().__init__()
        self.ft = nn.EmbeddingBag(769, n, mode="sum", padding_idx=0)
        self.ft_bias = nn.Parameter(torch.zeros(n))
        self.l1 = nn.Linear(n, hidden)
        self.out = nn.Linear(hidden, 1)

    def view(self, idx):
        x = torch.clamp(self.ft(idx) + self.ft_bias, 0, 1)
        h = x.shape[1] // 2
        return x[:, :h] * x[:, h:]

    def forward(self, us, them):
        return self.out(torch.clamp(self.l1(torch.cat([self.view(us), self.view(them)], 1)), 0, 1))


def bench_nnue(seconds, batch=1024, slots=32, pieces=26):
    g = torch.Generator().manual_seed(1)
    model = NNUE()
    opt = torch.optim.Adam(model.parameters(), lr=0.001)

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
        opt.zero_grad()
        loss = ((torch.sigmoid(model(us, them)) - y) ** 2).mean()
        loss.backward()
        opt.step()

    return timed(step, seconds, batch, warmup=5)


# dataset/encode's sequence layout: a state is 70 tokens (64 squares, side to
# move, four castling rights, en passant) over 26 words; a move is one of 1,968.
STATE_LEN, STATE_VOCAB, ACTION_VOCAB = 70, 26, 1968


class Block(nn.Module):
    """A pre-norm transformer block: x + attention(LN(x)), then x + MLP(LN(x))."""

    def __init__(self, dim, heads, mlp):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.attn = nn.Linear(dim, dim)
        self.mlp_in, self.mlp_out = nn.Linear(dim, mlp), nn.Linear(mlp, dim)

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        p = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(d // self.heads), dim=-1)
        x = x + self.attn((p @ v).transpose(1, 2).reshape(b, n, d))
        return x + self.mlp_out(torch.relu(self.mlp_in(self.ln2(x))))


class Transformer(nn.Module):
    """models/transformer's network: joint state and action word table, learned
    positions, blocks, final norm, state head on the state tokens, action head on
    the action tokens."""

    def __init__(self, horizon, dim=64, heads=2, layers=2, mlp=256):
        super().__init__()
        self.states, self.horizon = horizon * STATE_LEN, horizon
        self.embed = nn.Embedding(STATE_VOCAB + 1 + ACTION_VOCAB + 1, dim)
        self.pos = nn.Parameter(torch.randn(self.states + horizon, dim) * 0.02)
        self.blocks = nn.ModuleList(Block(dim, heads, mlp) for _ in range(layers))
        self.ln = nn.LayerNorm(dim)
        self.head_state, self.head_action = nn.Linear(dim, STATE_VOCAB), nn.Linear(dim, ACTION_VOCAB)

    def forward(self, words):
        x = self.embed(words) + self.pos
        for blk in self.blocks:
            x = blk(x)
        x = self.ln(x)
        return self.head_state(x[:, :self.states]), self.head_action(x[:, self.states:])


def bench_transformer(seconds, horizon, batch=128):
    g = torch.Generator().manual_seed(1)
    model = Transformer(horizon)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01)
    ss, h = horizon * STATE_LEN, horizon
    state_words = torch.randint(0, STATE_VOCAB + 1, (batch, ss), generator=g)
    action_words = STATE_VOCAB + 1 + torch.randint(0, ACTION_VOCAB + 1, (batch, h), generator=g)
    words = torch.cat([state_words, action_words], 1)
    # About half the slots masked, each with a target; the rest without (-1).
    def targets(vocab, shape):
        t = torch.randint(0, vocab, shape, generator=g)
        t[torch.rand(shape, generator=g) < 0.5] = -1
        return t
    state_targets, action_targets = targets(STATE_VOCAB, (batch, ss)), targets(ACTION_VOCAB, (batch, h))
    action_targets[:, 0] = torch.randint(0, ACTION_VOCAB, (batch,), generator=g)
    weights = torch.rand(batch, ss + h, generator=g) / batch
    legal = torch.full((batch, ACTION_VOCAB), -1e9)
    for r in range(batch):
        moves = torch.randperm(ACTION_VOCAB, generator=g)[:30]
        moves[0] = action_targets[r, 0]
        legal[r, moves] = 0

    def step():
        opt.zero_grad()
        ls, la = model(words)
        la = torch.cat([la[:, :1] + legal[:, None], la[:, 1:]], 1)
        ce_s = nn.functional.cross_entropy(ls.reshape(-1, STATE_VOCAB), state_targets.reshape(-1),
                                           ignore_index=-1, reduction="none").view(batch, ss)
        ce_a = nn.functional.cross_entropy(la.reshape(-1, ACTION_VOCAB), action_targets.reshape(-1),
                                           ignore_index=-1, reduction="none").view(batch, h)
        loss = (torch.cat([ce_s, ce_a], 1) * weights).sum()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()

    return timed(step, seconds, batch, warmup=3)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--seconds", type=float, default=5)
    p.add_argument("--models", default="ann,cnn,nnue,policy-small,diffusion-small",
                   help="comma-separated: ann, cnn, nnue, policy-small, diffusion-small")
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    benches = {
        "ann": lambda: bench(ann(), (64,), a.seconds),
        "cnn": lambda: bench(cnn(), (1, 8, 8), a.seconds),
        "nnue": lambda: bench_nnue(a.seconds),
        "policy-small": lambda: bench_transformer(a.seconds, horizon=1),
        "diffusion-small": lambda: bench_transformer(a.seconds, horizon=4),
    }
    for name in a.models.split(","):
        rate, cpu_ms = benches[name]()
        print(name, round(rate, 1), round(cpu_ms, 3))


if __name__ == "__main__":
    main()
