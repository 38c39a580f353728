"""``annotator jobs list|start KIND|cancel ID|work ID``: background jobs from the command line.

``start`` launches a detached worker and returns (``--wait`` follows it with a progress bar); ``work`` is what
that worker runs, so a job started in the app can also be run by hand.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from annotator.commands.common import add_data_option, open_project, print_table
from annotator.domain.jobs import Job, JobKind, JobState
from annotator.progress import TerminalProgress


def register(subparsers: argparse._SubParsersAction) -> None:
    jobs = subparsers.add_parser("jobs", help="background jobs: list, start, cancel (import, prepopulate, ...)")
    add_data_option(jobs)
    verbs = jobs.add_subparsers(dest="jobs_command", metavar="VERB", required=True)

    listing = verbs.add_parser("list", help="the newest jobs with their state and progress")
    add_data_option(listing)
    listing.add_argument("--limit", type=int, default=20)
    listing.add_argument("--json", action="store_true", help="one JSON object per job")
    listing.set_defaults(func=run_list)

    start = verbs.add_parser("start", help="start a job in a background worker")
    add_data_option(start)
    start.add_argument("kind", choices=[k.value for k in JobKind], help="what to run")
    start.add_argument("--file", help="import: the item file")
    start.add_argument("--force", action="store_true", help="import: replace changed items with curated work")
    start.add_argument("--languages", help="prepopulate: only these languages, e.g. IT,DE")
    start.add_argument(
        "--out", help="export/evaluate: output folder (default: DATA/exports, DATA/evaluations/NAME-evaluation)"
    )
    start.add_argument("--include-incomplete", action="store_true", help="export: see 'annotator export'")
    start.add_argument("--keep-partially-discarded", action="store_true", help="export: see 'annotator export'")
    start.add_argument("--dataset", help="evaluate: the exported dataset.jsonl")
    start.add_argument("--current", action="store_true", help="evaluate: score the project's current curation")
    start.add_argument("--translations", help="evaluate: the translations file")
    start.add_argument("--analyser", default="default", help="evaluate: default or stanza")
    start.add_argument("--wait", action="store_true", help="follow the job until it ends (exit 1 unless done)")
    start.set_defaults(func=run_start)

    cancel = verbs.add_parser("cancel", help="cancel a queued or running job (work done so far is kept)")
    add_data_option(cancel)
    cancel.add_argument("job", type=int, metavar="ID")
    cancel.set_defaults(func=run_cancel)

    work = verbs.add_parser("work", help="run a queued job in this process (what the background worker runs)")
    add_data_option(work)
    work.add_argument("job", type=int, metavar="ID")
    work.set_defaults(func=run_work)


def _params(args: argparse.Namespace) -> dict[str, Any]:
    kind = JobKind(args.kind)
    if kind is JobKind.IMPORT:
        return {"file": args.file, "force": args.force}
    if kind is JobKind.PREPOPULATE:
        from annotator.domain.settings import parse_languages

        return {"languages": list(parse_languages(args.languages))} if args.languages else {}
    if kind is JobKind.EXPORT:
        params: dict[str, Any] = {
            "include_incomplete": args.include_incomplete,
            "keep_partially_discarded": args.keep_partially_discarded,
        }
        return {**params, "out": args.out} if args.out else params
    if kind is JobKind.EVALUATE:
        params = {"translations": args.translations, "analyser": args.analyser}
        params.update({"current": True} if args.current else {"dataset": args.dataset})
        return {**params, "out": args.out} if args.out else params
    return {}


def describe(job: Job) -> str:
    """One line: what ended how (the result's summary, or the error)."""
    if job.error:
        return job.error
    if job.result and job.result.get("summary"):
        return str(job.result["summary"])
    return job.message


def run_list(args: argparse.Namespace) -> int:
    from annotator.services import jobs

    found = jobs.list_jobs(open_project(args), limit=args.limit)
    if args.json:
        for job in found:
            print(json.dumps({**job.__dict__, "kind": job.kind.value, "state": job.state.value}, ensure_ascii=False))
        return 0
    print_table(
        ["id", "kind", "state", "progress", "by", "created (UTC)", "outcome"],
        [
            [
                j.id,
                j.kind.value,
                j.state.value,
                f"{j.done}/{j.total}" if j.total else "",
                j.user,
                j.created_at[:19].replace("T", " "),
                describe(j)[:80],
            ]
            for j in found
        ],
    )
    return 0


def run_start(args: argparse.Namespace) -> int:
    from annotator.services import jobs

    project = open_project(args)
    job = jobs.start(project, args.kind, _params(args))
    print(f"job {job.id} ({job.kind.value}) started, worker pid {job.worker_pid}; see 'annotator jobs list'")
    if not args.wait:
        return 0
    job = jobs.wait(project, job.id, timeout=24 * 3600, progress=TerminalProgress(job.kind.value))
    print(f"job {job.id} {job.state.value}: {describe(job)}")
    return 0 if job.state is JobState.DONE else 1


def run_cancel(args: argparse.Namespace) -> int:
    from annotator.services import jobs

    job = jobs.cancel(open_project(args), args.job)
    print(f"job {job.id}: {job.state.value}" + (" (cancel requested)" if job.active else ""))
    return 0


def run_work(args: argparse.Namespace) -> int:
    from annotator.services import jobs

    job = jobs.work(open_project(args), args.job)
    print(f"job {job.id} {job.state.value}: {describe(job)}")
    return 0 if job.state is JobState.DONE else 1
