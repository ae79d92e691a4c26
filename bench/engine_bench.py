"""Engine speed: full 4-seat games per second with random bots, and the time to
replay a complete game log. Figures are medians of several runs, printed beside
a baseline measured in the same run (the cost of copying the state alone)."""
from __future__ import annotations

import random
import statistics
import time

from app import engine as E
from app.engine import bots
from app.engine.rules import apply_in_place

RUNS = 5
GAMES_PER_RUN = 40


def play_random_game(seed: int, pure: bool) -> list[tuple[int, dict]]:
    """One full 4-seat game between random bots; returns its action log."""
    rng = random.Random(seed)
    st = E.new_game(4, seed)
    log = []
    while st.phase != "over":
        seat = E.to_act(st)[0]
        action = bots.random_bot(st, seat, rng)
        if pure:
            st, _ = E.apply_action(st, seat, action)
        else:
            apply_in_place(st, seat, action)
        log.append((seat, action))
    return log


def games_per_second(pure: bool) -> tuple[float, float]:
    rates, steps = [], []
    for run in range(RUNS):
        t0 = time.perf_counter()
        n = 0
        for g in range(GAMES_PER_RUN):
            n += len(play_random_game(run * 1000 + g, pure))
        dt = time.perf_counter() - t0
        rates.append(GAMES_PER_RUN / dt)
        steps.append(n / GAMES_PER_RUN)
    return statistics.median(rates), statistics.median(steps)


def replay_ms() -> tuple[float, int]:
    logs = [play_random_game(10_000 + i, pure=False) for i in range(10)]
    times = []
    for log in logs:
        for _ in range(3):
            t0 = time.perf_counter()
            E.replay(4, 10_000 + logs.index(log), log)
            times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times), int(statistics.median(len(log) for log in logs))


def listing_cost() -> dict[bool, tuple[float, int, int]]:
    """R32: legal_actions at exchange decisions (drawn/taken) in random-bot games,
    without and with the memory option: median us per call, largest list, calls."""
    out = {}
    for memory in (False, True):
        times, largest = [], 0
        for seed in range(20):
            rng = random.Random(seed)
            st = E.new_game(4, seed, options={"memory": memory})
            while st.phase != "over":
                seat = E.to_act(st)[0]
                if seat == st.current and st.stack and st.stack[-1]["kind"] in ("drawn", "taken"):
                    t0 = time.perf_counter()
                    acts = E.legal_actions(st, seat)
                    times.append((time.perf_counter() - t0) * 1e6)
                    largest = max(largest, len(acts))
                apply_in_place(st, seat, bots.random_bot(st, seat, rng))
        out[memory] = (statistics.median(times), largest, len(times))
    return out


def clone_baseline_us() -> float:
    st = E.new_game(4, 1)
    t0 = time.perf_counter()
    for _ in range(20_000):
        st.clone()
    return (time.perf_counter() - t0) / 20_000 * 1e6


def main() -> None:
    print("== engine (one core, random bots, 4 seats)")
    rate_pure, steps = games_per_second(pure=True)
    rate_inplace, _ = games_per_second(pure=False)
    ms, log_len = replay_ms()
    base = clone_baseline_us()
    print(f"full games/s, bots driving the engine in place : {rate_inplace:8.1f}  ({steps:.0f} actions a game)")
    print(f"full games/s through the pure apply_action     : {rate_pure:8.1f}  "
          f"(copies the state every action; ratio {rate_pure / rate_inplace:.2f})")
    print(f"replay of a complete game log                  : {ms:8.2f} ms ({log_len} actions, median)")
    print(f"baseline: one state copy                       : {base:8.2f} us; per action in place "
          f"{1e6 / (rate_inplace * steps):.1f} us (bot included)")
    for memory, (us, largest, calls) in listing_cost().items():
        print(f"legal_actions at an exchange{' (memory)' if memory else '         '}      : {us:8.1f} us "
              f"median of {calls} calls; longest list {largest} (R32 keeps it under 200)")
    print(f"targets: >= 200 games/s -> in place {'met' if rate_inplace >= 200 else 'NOT met'}, "
          f"pure {'met' if rate_pure >= 200 else 'NOT met'}; "
          f"replay <= 5 ms -> {'met' if ms <= 5 else 'NOT met'}")


if __name__ == "__main__":
    main()
