"""What a job tells its user on stderr: its progress bar (done/total, ETA and failures as scenarios
finish) and one-line notices."""

import sys


def say(line: str) -> None:
    """A one-line notice on stderr, beside the progress bar (never in the output a script may parse)."""
    print(line, file=sys.stderr, flush=True)


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during a job, with how far it got: the finished scenarios are saved, a re-run resumes."""

    def __init__(self, done: int, total: int):
        super().__init__(f"{done} of {total} scenarios done")
        self.done = done
        self.total = total


class Progress:
    """Shown from ``start()``, once the work is submitted, so that a job that cannot start prints no bar."""

    def __init__(self, total: int, job: str, enabled: bool = True, verbose: bool = False):
        self.total = total
        self.job = job
        self.enabled = enabled
        self.verbose = verbose
        self.done = 0
        self.failed = 0
        self.bar = None

    def start(self) -> None:
        from tqdm.auto import tqdm  # here: ``plan`` and ``--help`` import this module and show no bar

        self.bar = tqdm(total=self.total, desc=self.job, unit="scenario", file=sys.stderr, disable=not self.enabled, dynamic_ncols=True)
        self.bar.set_postfix(failed=0)

    def finished(self, outcome) -> None:
        """Count a scenario's ``ScenarioOutcome``; print its line when verbose."""
        self.done += 1
        if not outcome.ok:
            self.failed += 1
            self.bar.set_postfix(failed=self.failed)
        if self.verbose:
            self.bar.write(outcome.line(), file=sys.stderr)
        self.bar.update(1)

    def interrupted(self) -> Interrupted:
        return Interrupted(self.done, self.total)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
