"""The team's accounts: adding them, their role and languages, disabling them, listing them.

A project with accounts always keeps an enabled lead (only a lead manages the team, and log-in is required once
any account exists): the first account must be a lead, and demoting or disabling the last enabled lead is refused
here, so the command line, the People page and every other caller keep the rule alike.
"""

from __future__ import annotations

import re

from sqlalchemy import Connection

from annotator.context import ProjectContext
from annotator.domain.languages import check_in_project
from annotator.domain.model import Role, User
from annotator.domain.unicode_rules import check_storable
from annotator.errors import UserError
from annotator.services.accounts.passwords import check_password, hash_password
from annotator.services.accounts.sso import check_email_free, normalize_email
from annotator.store.repository import Repository

_USERNAME = re.compile(r"^[A-Za-z0-9_.-]{2,64}$")


class MissingLanguages(UserError):
    """A translator without languages. Each front end adds how to give them in its own words (a command-line flag
    on the command line, the Languages box in the browser)."""

    def __init__(self) -> None:
        super().__init__("A translator needs at least one language.")


class FirstAccountNotLead(UserError):
    """The first account of a project must be a lead: from then on everyone logs in, and only a lead adds others."""

    def __init__(self) -> None:
        super().__init__(
            "The first account of a project must be a lead: once it exists everyone has to log in, and only a lead "
            "can add the others."
        )


class LastLead(UserError):
    """The change would leave the project's accounts without an enabled lead."""

    def __init__(self, name: str, change: str) -> None:
        super().__init__(
            f"{name!r} is the last enabled lead: {change} would leave nobody to manage the team. "
            "Make another account a lead first."
        )


def add_user(
    project: ProjectContext,
    name: str,
    role: Role | str,
    languages: tuple[str, ...],
    password: str,
    display_name: str = "",
    email: str | None = None,
    must_change_password: bool = False,
) -> User:
    """A new account. ``must_change_password``: the password is a one-time one someone else was shown (the People
    page's), to be replaced by its owner at the first log-in."""
    if not _USERNAME.match(name):
        raise UserError(f"User name {name!r}: use 2-64 letters, digits, '.', '_' or '-'.")
    role = Role(role)
    check_password(password)
    check_storable("display name", display_name)
    langs = check_in_project(languages, project.settings().languages)  # ISO 639 codes of this project only
    if role is Role.TRANSLATOR and not langs:
        raise MissingLanguages()
    address = normalize_email(email) if email else None
    user = User(
        name=name,
        role=role,
        languages=langs,
        display_name=display_name or name,
        email=address,
        must_change_password=must_change_password,
    )
    with project.db.write() as conn:
        if role is not Role.LEAD and project.repo.count_users(conn) == 0:
            raise FirstAccountNotLead()
        if address is not None:
            check_email_free(project.repo, conn, address, name)
        project.repo.add_user(conn, user, hash_password(password))
    return user


def _check_leads_remain(repo: Repository, conn: Connection, name: str, change: str) -> None:
    """Refuse (``LastLead``) when ``name`` is the only enabled lead and ``change`` would take that away."""
    user = repo.get_user(conn, name)
    if user is None or not user.is_lead or user.disabled:
        return
    if repo.count_enabled_leads(conn) <= 1:
        raise LastLead(name, change)


def set_role(project: ProjectContext, name: str, role: Role | str, languages: tuple[str, ...]) -> User:
    """Change an account's role and languages (the rules of ``add_user``); the next action of an open session
    already runs with them (every request reads the account afresh), so no session needs to end."""
    role = Role(role)
    langs = check_in_project(languages, project.settings().languages)  # ISO 639 codes of this project only
    if role is Role.TRANSLATOR and not langs:
        raise MissingLanguages()
    with project.db.write() as conn:
        if role is not Role.LEAD:
            _check_leads_remain(project.repo, conn, name, "making them a translator")
        project.repo.update_user(conn, name, role=role, languages=langs)
        user = project.repo.get_user(conn, name)
    if user is None:  # update_user already refused an unknown name; this keeps the return type honest
        raise UserError(f"No user named {name!r}.")
    return user


def set_disabled(project: ProjectContext, name: str, disabled: bool) -> None:
    """Disable or enable an account; disabling also ends its open sessions (enabling does not revive them)."""
    with project.db.write() as conn:
        if disabled:
            _check_leads_remain(project.repo, conn, name, "disabling the account")
        project.repo.update_user(conn, name, disabled=disabled)
        project.repo.bump_session_epoch(conn, name)


def list_users(project: ProjectContext) -> list[User]:
    with project.db.read() as conn:
        return project.repo.list_users(conn)


def find_user(project: ProjectContext, name: str) -> User | None:
    """The account named ``name`` (None when there is none), disabled or not: the caller decides."""
    with project.db.read() as conn:
        return project.repo.get_user(conn, name)


def has_users(project: ProjectContext) -> bool:
    with project.db.read() as conn:
        return project.repo.count_users(conn) > 0
