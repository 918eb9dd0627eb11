"""The progress bar of a job: done/total, ETA and failures as scenarios finish."""

import sys

from tqdm.auto import tqdm


class Progress:
    def __init__(self, total: int, job: str, enabled: bool = True, verbose: bool = False):
        self.verbose = verbose
        self.failed = 0
        self.bar = tqdm(total=total, desc=job, unit="scenario", file=sys.stderr, disable=not enabled, dynamic_ncols=True)
        self.bar.set_postfix(failed=0)

    def finished(self, ok: bool, line: str) -> None:
        if not ok:
            self.failed += 1
            self.bar.set_postfix(failed=self.failed)
        if self.verbose:
            self.bar.write(line, file=sys.stderr)
        self.bar.update(1)

    def close(self) -> None:
        self.bar.close()
