"""The ``audit`` table: project-level changes (accounts, languages, exclusions, imports), newest first."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Connection, select

from annotator.clock import utc_now
from annotator.store import schema
from annotator.store.rows import dumps


class AuditRecords:
    """The project's audit trail; part of ``Repository``."""

    def add_audit(self, conn: Connection, user: str, action: str, detail: dict[str, Any]) -> None:
        conn.execute(schema.audit.insert().values(user=user, at=utc_now(), action=action, detail=dumps(detail)))

    def audit(self, conn: Connection, limit: int = 200) -> list[dict[str, Any]]:
        """The newest project-level changes first."""
        a = schema.audit
        rows = conn.execute(select(a).order_by(a.c.id.desc()).limit(limit))
        return [{"user": r.user, "at": r.at, "action": r.action, "detail": json.loads(r.detail)} for r in rows]

    def has_audit_action(self, conn: Connection, action: str) -> bool:
        """Whether the audit trail holds a change of kind ``action`` (one indexed look-up, not the trail)."""
        a = schema.audit
        return conn.execute(select(a.c.id).where(a.c.action == action).limit(1)).first() is not None
