"""Change password (everyone logged in with a user name and password): the form lives in ``password_forms``."""

from __future__ import annotations

from annotator.app.password_forms import render_change


def render() -> None:
    render_change()


if __name__ == "__main__":  # run as a page script (see annotator.app.main.run_page)
    from annotator.app.main import run_page

    run_page(render)
