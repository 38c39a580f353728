"""The one action runner of the app: a typed command to the curation service, its outcome in the user's words.

Curate, Review, Double curation and Agreement (the work area's events, the lead's Resolve form, Reopen in Review's
discarded list, adjudication) all change an item-language through ``run``: one ``CurationService.handle`` call with
the version the page showed, so a stale page is refused by the service and the refusal, a rule's message or a
database fault is said the same way everywhere (``attempt``: the same for a lead's action that is no command). The
caller decides where the words are shown (the work area's feedback, beside a button).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from annotator.app import components, failures, faults, messages, session
from annotator.domain.candidates import CandidateError
from annotator.domain.commands import Address, Command
from annotator.domain.model import ItemLanguage, Status
from annotator.errors import ConflictError, DatabaseUnavailableError, UserError


@dataclass(frozen=True)
class Outcome:
    """What one command did: the saved state, or why nothing was saved (``error``, said in a translator's words)."""

    saved: ItemLanguage | None
    error: str = ""
    conflict: bool = False

    @property
    def ok(self) -> bool:
        return not self.error


def refusal(error: UserError | CandidateError, lead: bool) -> str:
    """A refusal as the user reads it: a conflict says so, a candidate rule's id only for leads."""
    if isinstance(error, ConflictError):
        return f"Not saved — conflict. {error}"
    if isinstance(error, CandidateError):
        return components.candidate_error_message(error, lead)
    return str(error)


def run(address: Address, command: Command, version: int | None, was: Status | None = None) -> Outcome:
    """Apply ``command`` to ``address`` for the user logged in now. ``was`` is the status the page showed: given, the
    session's progress counts are moved from it to the saved status instead of re-read (``moved_progress``)."""
    user = session.current_user()
    if user is None:
        return Outcome(None, "Please log in again: your session has ended.")
    saved: list[ItemLanguage] = []
    refused = _refusal_of(lambda: saved.append(session.service(user).handle(address, command, version)), user.is_lead)
    if refused is not None:
        return refused
    if not address.is_copy:
        components.moved_progress(was, saved[0])
    return Outcome(saved[0])


def attempt(call: Callable[[], object]) -> Outcome:
    """A lead's project action that is not a change of curation (assigning items for double curation), run for the
    user logged in now with ``run``'s refusals: a rule's words, a database fault, a reference id for the unexpected."""
    user = session.current_user()
    if user is None:
        return Outcome(None, "Please log in again: your session has ended.")
    return _refusal_of(call, user.is_lead) or Outcome(None)


def _refusal_of(call: Callable[[], object], lead: bool) -> Outcome | None:
    """Run ``call``; None when it went through, else why nothing was saved in the user's words."""
    try:
        call()
    except DatabaseUnavailableError as error:  # said with what became of the change, by the page's fault wrapper
        faults.say_database_fault(error)
        return Outcome(None, error.unsaved_message)
    except (UserError, CandidateError) as error:
        return Outcome(None, refusal(error, lead), isinstance(error, ConflictError))
    except Exception as error:  # unexpected (a callback runs outside the page's own handler): no traceback shown
        return Outcome(None, failures.MESSAGE.format(reference=failures.report(error)))
    return None


def run_and_flash(address: Address, command: Command, version: int | None, success: str) -> None:
    """``run`` as a Streamlit button's callback: the outcome as the page's one-shot message."""
    outcome = run(address, command, version)
    messages.flash("success" if outcome.ok else "error", success if outcome.ok else outcome.error)
