"""``annotator serve``: start the Streamlit app on a project (localhost unless told otherwise)."""

from __future__ import annotations

import argparse
import errno
import os
import socket
import sys
import tomllib
from pathlib import Path

from annotator.commands.common import add_data_option
from annotator.errors import UserError
from annotator.project import Project, project_exists, resolve_data_dir

APP = Path(__file__).resolve().parent.parent / "app" / "main.py"
#: Streamlit's settings for the app (theme, headless, no file watching…), inside the package: passed as command-line
#: options, which win over any ``.streamlit/config.toml`` of the folder ``serve`` is started in.
STREAMLIT_CONFIG = APP.parent / "streamlit_config.toml"


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


def streamlit_options(overrides: dict[str, object]) -> list[str]:
    """The package's Streamlit settings (``streamlit_config.toml``) as ``--section.key value`` options, with
    ``overrides`` (address, port, upload limit) in place of the file's values."""
    settings = tomllib.loads(STREAMLIT_CONFIG.read_text(encoding="utf-8"))
    values: dict[str, object] = {
        f"{section}.{key}": value for section, table in settings.items() for key, value in table.items()
    }
    values.update(overrides)
    options: list[str] = []
    for name, value in values.items():
        text = str(value).lower() if isinstance(value, bool) else str(value)
        options += [f"--{name}", text]
    return options


def check_port_free(address: str, port: int) -> None:
    """Refuse a port another program already listens on (exit 2, before "serving…" is printed): Streamlit would
    otherwise start, print its own error and stop, without a word of ``--port``."""
    try:
        infos = socket.getaddrinfo(address, port, type=socket.SOCK_STREAM)
    except socket.gaierror as error:
        raise UserError(f"Cannot listen on {address!r}: {error.strerror} (--address).") from None
    family, _, _, _, sockaddr = infos[0]
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server binds: TIME_WAIT is no obstacle
        try:
            probe.bind(sockaddr)
        except OSError as error:
            if error.errno == errno.EADDRINUSE:
                raise UserError(
                    f"Port {port} on {address} is already in use (another server is running there). "
                    f"Start on a free port, e.g. annotator serve --port {port + 1}."
                ) from None
            raise UserError(f"Cannot listen on {address}:{port}: {error.strerror}.") from None


def run_serve(args: argparse.Namespace) -> int:
    """Check the configuration (secrets, address, project), then the port, then build the demo and serve: a
    mistake in the configuration is reported as such even while another server holds the port."""
    data_dir = resolve_data_dir(getattr(args, "data", None))
    secrets = None
    if args.secrets:
        secrets = Path(args.secrets).expanduser().resolve()
        if not secrets.is_file():
            raise UserError(f"Secrets file {str(secrets)!r} not found (--secrets / ANNOTATOR_SECRETS).")
    check_secrets(_secrets_files(secrets))
    build_demo = args.demo and not project_exists(data_dir)
    if not build_demo:  # no project, or a newer schema: say so now (exit 2), migrate before serving
        Project.open(data_dir).db.dispose()
    check_port_free(args.address, args.port)  # before building a demo or saying "serving"
    if build_demo:
        from annotator.commands.project import create_demo

        create_demo(str(data_dir))
    env = {**os.environ, "ANNOTATOR_DATA": str(data_dir)}
    command = [sys.executable, "-m", "streamlit", "run", str(APP)]
    command += streamlit_options(
        {"server.address": args.address, "server.port": args.port, "server.maxUploadSize": _upload_limit_mb(data_dir)}
    )
    if secrets is not None:
        command += ["--secrets.files", str(secrets)]  # replaces Streamlit's own two places
    print(f"annotator: serving {data_dir} on http://{args.address}:{args.port}", flush=True)
    # Become the server (no child process): stopping `annotator serve` stops Streamlit with it.
    os.execve(sys.executable, command, env)
    return 0  # not reached
