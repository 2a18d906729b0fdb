#!/usr/bin/python3
"""The serial share of a training step from a CPU profile of BenchmarkTrainStepWorkers.

Usage: serial_share.py TEST_BINARY PROFILE [-v]. Splits the profile's samples (go tool pprof
-traces) by the root of each sample's goroutine: what runs side by side (a worker's machine, a
worker, a span of the optimizer or of the gradient sum, an op's task or band, gonum's blocks, the
optimizer's norm, the garbage collector) and the serial rest of the step on the benchmark's
goroutine, where the scheduler's thread hand-overs are counted too (a safe side: some of them
overlap the workers). The benchmark's setup (building the graphs, filling the batch) is left out.
Prints the serial and parallel milliseconds and the serial share; -v also the largest parts."""
import collections
import re
import subprocess
import sys

# Roots of the goroutines whose work runs side by side.
PARALLEL = ["tapeMachine).runall", "parallelGraph).run.func1", "forSpans.func1", "forTasks.func1",
            "inBands.func1", "sgemmParallel.func1", "WaitGroup).Go.func1", "adam).step.func",
            "gcBgMarkWorker", "bgsweep", "bgscavenge"]
SETUP = ["newStepGraph", "newTrainGraphOn", "fillSequenceBatch", "fillRandomBatch", "InitParams", "Objective"]
SCHEDULER = ["mcall", "futex", "schedule", "mstart", "stopm"]


def ms(v):
    x, unit = re.match(r"([\d.]+)(ms|s|us)", v).groups()
    return float(x) * {"s": 1000, "ms": 1, "us": 0.001}[unit]


def main():
    binary, prof = sys.argv[1], sys.argv[2]
    out = subprocess.run(["go", "tool", "pprof", "-traces", binary, prof], capture_output=True, text=True, check=True).stdout
    parts = collections.Counter()
    for block in out.split("-----------+-------------------------------------------------------")[1:]:
        lines = [l.strip() for l in block.strip("\n").split("\n") if l.strip()]
        m = re.match(r"([\d.]+(?:ms|s|us))\s+(.*)", lines[0]) if lines else None
        if not m:
            continue
        frames = [m.group(2)] + lines[1:]
        stack, root = " ".join(frames), frames[-1]
        if any(p in root for p in PARALLEL):
            part = "parallel: " + next(p for p in PARALLEL if p in root)
        elif any(s in stack for s in SCHEDULER):
            part = "serial: scheduler"
        elif any(s in stack for s in SETUP):
            part = "setup"
        elif "benchTrainStep" in stack:
            f = next((x for x in frames if "pipeline/train." in x and "benchTrainStep" not in x), frames[0])
            part = "serial: " + re.sub(r"^github.com/dchess/dchess/", "", f)
        else:
            part = "other: " + root
        parts[part] += ms(m.group(1))
    serial = sum(v for p, v in parts.items() if p.startswith("serial"))
    parallel = sum(v for p, v in parts.items() if p.startswith("parallel"))
    if "-v" in sys.argv:
        for p, v in parts.most_common(20):
            print(f"  {p:60s} {v:8.0f} ms")
    print(f"serial {serial:.0f} ms, parallel {parallel:.0f} ms: serial share {serial / (serial + parallel):.3f}")


if __name__ == "__main__":
    main()
