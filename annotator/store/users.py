"""The ``users`` table: accounts, their role, languages, password hash and whether that password must be changed.

``UserRecords`` (part of ``Repository``) takes the caller's connection. Login sessions are in ``store.sessions``,
the log-in throttle in ``store.login_throttle``.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Connection, func, select

from annotator.clock import utc_now
from annotator.domain.model import Role, User
from annotator.errors import UserError
from annotator.store import schema
from annotator.store.rows import dumps


def user_from_row(row: Any) -> User:
    return User(
        name=row.name,
        role=Role(row.role),
        languages=tuple(json.loads(row.languages)),
        display_name=row.display_name,
        disabled=bool(row.disabled),
        email=row.email,
        must_change_password=bool(row.must_change_password),
    )


class UserRecords:
    """Accounts; part of ``Repository`` (``project.repo.get_user(conn, name)``)."""

    def add_user(self, conn: Connection, user: User, password_hash: str | None) -> None:
        """Insert an account; a ``UserError`` when the name is taken."""
        exists = conn.execute(select(schema.users.c.name).where(schema.users.c.name == user.name)).first()
        if exists:
            raise UserError(f"User {user.name!r} already exists.")
        conn.execute(
            schema.users.insert().values(
                name=user.name,
                display_name=user.display_name,
                role=user.role.value,
                languages=dumps(list(user.languages)),
                password_hash=password_hash,
                disabled=user.disabled,
                created_at=utc_now(),
                email=user.email,
                must_change_password=user.must_change_password,
            )
        )

    def get_user(self, conn: Connection, name: str) -> User | None:
        """The account named ``name``, or None."""
        row = conn.execute(select(schema.users).where(schema.users.c.name == name)).first()
        return user_from_row(row) if row else None

    def get_user_by_email(self, conn: Connection, email: str) -> User | None:
        """The account with this (already lower-cased) e-mail address, or None."""
        row = conn.execute(select(schema.users).where(schema.users.c.email == email)).first()
        return user_from_row(row) if row else None

    def get_password_hash(self, conn: Connection, name: str) -> str | None:
        """The account's password hash; None without an account or a password (single sign-on only)."""
        row = conn.execute(select(schema.users.c.password_hash).where(schema.users.c.name == name)).first()
        return row[0] if row else None

    def list_users(self, conn: Connection) -> list[User]:
        """Every account, by name."""
        return [user_from_row(r) for r in conn.execute(select(schema.users).order_by(schema.users.c.name))]

    def count_users(self, conn: Connection) -> int:
        """How many accounts there are, disabled ones included."""
        return int(conn.execute(select(func.count()).select_from(schema.users)).scalar_one())

    def count_enabled_leads(self, conn: Connection) -> int:
        """Enabled lead accounts: a project with accounts must always keep one (only a lead manages the team)."""
        users = schema.users
        query = select(func.count()).where(users.c.role == Role.LEAD.value, users.c.disabled.is_(False))
        return int(conn.execute(query).scalar_one())

    def update_user(self, conn: Connection, name: str, **values: Any) -> None:
        """Change columns of an account (``languages`` and ``role`` as the domain gives them); a ``UserError`` when
        there is no such account."""
        if "languages" in values:
            values["languages"] = dumps(list(values["languages"]))
        if "role" in values and isinstance(values["role"], Role):
            values["role"] = values["role"].value
        result = conn.execute(schema.users.update().where(schema.users.c.name == name).values(**values))
        if result.rowcount == 0:
            raise UserError(f"No user named {name!r}.")
