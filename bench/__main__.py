"""`make bench`: every benchmark, each printing its figures beside a baseline
measured in the same run.  `python -m bench engine http mail` picks some.

The tools that compare this tree with another (issue 18's acceptance) take
arguments and are not part of the whole run: `python -m bench trace [--against
/work/before]`, `python -m bench against /work/before [--db sqlite,postgresql]`."""
from __future__ import annotations

import importlib
import sys

SUITES = {"engine": "bench.engine_bench", "http": "bench.http_bench", "mail": "bench.mail_bench",
          "abuse": "bench.abuse_bench",
          "reply": "bench.reply_bench", "talk": "bench.talk_bench",
          # issue 49: Web Push, due -> handed to the push endpoint
          "push": "bench.push_bench", "prune": "bench.prune_bench", "storage": "bench.storage_bench", "peer": "bench.peer_bench",
          # issue 47: every rated game again, on 10,000 of them
          "rerate": "bench.rerate_bench",
          # issue 48: /tables and /api/tables with 10,000 open tables
          "tables": "bench.tables_bench",
          # a store that has lived beside a fresh one (issue 30); builds bench_lived_v1 once
          "lived": "bench.lived_bench",
          # restarts PostgreSQL itself only with BENCH_FAULT_RESTART_POSTGRES=1 (see bench/fault.py)
          "fault": "bench.fault",
          # ours (web, clock, inbound) beside boardgame.io on the lived store, in windows (issue 30)
          "peer-lived": "bench.peer_lived_bench",
          # issue 50: a turn mail and a seat page in English, German and Japanese
          "i18n": "bench.i18n_bench"}


#: Run alone, with the rest of the command line as their arguments.
TOOLS = {"trace": "bench.trace", "against": "bench.against"}


def main(argv: list[str]) -> int:
    if argv and argv[0] in TOOLS:
        return int(importlib.import_module(TOOLS[argv[0]]).main(argv[1:]) or 0)
    chosen = argv or list(SUITES)
    failed = []
    for name in chosen:
        module = SUITES.get(name)
        if module is None:
            print(f"unknown benchmark {name!r}; choose from {', '.join(SUITES)}")
            return 2
        try:
            importlib.import_module(module).main()
        except Exception as e:  # noqa: BLE001 - report and go on with the next suite
            print(f"!! {name} benchmark failed: {type(e).__name__}: {e}")
            failed.append(name)
        print()
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
