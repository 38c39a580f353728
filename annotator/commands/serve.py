"""``annotator serve``: start the Streamlit app on a project (localhost unless told otherwise)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from annotator.commands.common import add_data_option
from annotator.errors import UserError
from annotator.project import Project, project_exists, resolve_data_dir

APP = Path(__file__).resolve().parent.parent / "app" / "main.py"


def register(subparsers: argparse._SubParsersAction) -> None:
    serve = subparsers.add_parser("serve", help="start the web app (http://localhost:8501)")
    add_data_option(serve)
    serve.add_argument("--port", type=int, default=8501)
    serve.add_argument("--address", default="127.0.0.1", help="listen address (default: localhost only)")
    serve.add_argument("--demo", action="store_true", help="create the demo project first if the folder is empty")
    serve.add_argument(
        "--secrets",
        default=os.environ.get("ANNOTATOR_SECRETS") or None,
        metavar="PATH",
        help="Streamlit secrets file (session_secret, single sign-on's [auth]); default: ANNOTATOR_SECRETS, else "
        "Streamlit's own .streamlit/secrets.toml in the current folder and ~/.streamlit/secrets.toml",
    )
    serve.set_defaults(func=run_serve)


def _upload_limit_mb(data_dir: Path) -> int:
    """The project's input limit max_file_mb: the browser then refuses what the readers would refuse anyway."""
    from annotator.data_import.limits import InputLimits
    from annotator.services.administration import project_limits

    try:
        return project_limits(Project.open(data_dir)).max_file_mb
    except UserError:
        return InputLimits().max_file_mb


def _secrets_files(explicit: Path | None) -> list[Path]:
    """The secrets files Streamlit will read: ``--secrets`` alone, else its own two places (when present)."""
    if explicit is not None:
        return [explicit]
    places = [Path.home() / ".streamlit" / "secrets.toml", Path.cwd() / ".streamlit" / "secrets.toml"]
    return [path for path in places if path.is_file()]


def check_secrets(files: list[Path]) -> None:
    """Refuse to start with an empty or short ``session_secret``, or malformed ``trusted_proxies`` (exit 2):
    the app would refuse every log-in with it anyway, better said once in the terminal."""
    import tomllib

    from annotator.services import accounts

    for path in files:
        try:
            settings = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
            raise UserError(f"Secrets file {str(path)!r} cannot be read: {error}") from None
        if "session_secret" in settings:
            accounts.check_secret(str(settings["session_secret"]), f"the secrets file {str(path)!r}")
        if "trusted_proxies" in settings and "ANNOTATOR_TRUSTED_PROXIES" not in os.environ:
            accounts.parse_trusted_proxies(settings["trusted_proxies"], f"the secrets file {str(path)!r}")
    accounts.parse_trusted_proxies(os.environ.get("ANNOTATOR_TRUSTED_PROXIES"), "ANNOTATOR_TRUSTED_PROXIES")


def run_serve(args: argparse.Namespace) -> int:
    data_dir = resolve_data_dir(getattr(args, "data", None))
    if args.demo and not project_exists(data_dir):
        from annotator.commands.project import create_demo

        create_demo(str(data_dir))
    Project.open(data_dir).db.dispose()  # no project, or a newer schema: say so now (exit 2), migrate before serving
    env = {**os.environ, "ANNOTATOR_DATA": str(data_dir)}
    command = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(APP),
        "--server.address",
        args.address,
        "--server.port",
        str(args.port),
        "--server.headless",
        "true",
        "--browser.gatherUsageStats",
        "false",
        "--client.toolbarMode",
        "viewer",
        # no traceback in the browser (file paths, SQL, values): the app shows a plain message and a reference id,
        # the detail goes to the server's log (annotator/app/failures.py)
        "--client.showErrorDetails",
        "none",
        "--server.maxUploadSize",
        str(_upload_limit_mb(data_dir)),
        # no watching of the installed code: an upgrade while serving would otherwise offer every open page a
        # "source file changed, rerun" prompt mid-work; restarting the server is how new code is taken in
        "--server.fileWatcherType",
        "none",
    ]
    secrets = None
    if args.secrets:
        secrets = Path(args.secrets).expanduser().resolve()
        if not secrets.is_file():
            raise UserError(f"Secrets file {str(secrets)!r} not found (--secrets / ANNOTATOR_SECRETS).")
        command += ["--secrets.files", str(secrets)]  # replaces Streamlit's own two places
    check_secrets(_secrets_files(secrets))
    print(f"annotator: serving {data_dir} on http://{args.address}:{args.port}", flush=True)
    # Become the server (no child process): stopping `annotator serve` stops Streamlit with it.
    os.execve(sys.executable, command, env)
    return 0  # not reached
