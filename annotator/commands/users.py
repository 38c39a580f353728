"""``annotator users add|list|passwd|email|disable|enable``: accounts, roles and single sign-on addresses."""

from __future__ import annotations

import argparse
import getpass
import os
import sys

from annotator.commands.common import add_data_option, open_project, print_table
from annotator.errors import UserError


def _password(args: argparse.Namespace) -> str:
    if getattr(args, "password_stdin", False):
        return sys.stdin.readline().rstrip("\n")
    if os.environ.get("ANNOTATOR_PASSWORD"):
        return os.environ["ANNOTATOR_PASSWORD"]
    if not sys.stdin.isatty():
        raise UserError("No password: use --password-stdin or set ANNOTATOR_PASSWORD.")
    first = getpass.getpass("Password: ")
    if first != getpass.getpass("Repeat password: "):
        raise UserError("The passwords differ.")
    return first


def register(subparsers: argparse._SubParsersAction) -> None:
    users = subparsers.add_parser("users", help="manage accounts (translators and leads)")
    actions = users.add_subparsers(dest="users_command", metavar="ACTION")
    add = actions.add_parser("add", help="add a user (password from a prompt, --password-stdin or ANNOTATOR_PASSWORD)")
    add_data_option(add)
    add.add_argument("name")
    add.add_argument("--role", choices=["translator", "lead"], default="translator")
    add.add_argument("--languages", default="", help="translator's languages, e.g. IT,DE")
    add.add_argument("--display-name", default="")
    add.add_argument("--email", default="", help="address a single sign-on login is matched by (optional)")
    add.add_argument("--password-stdin", action="store_true", help="read the password from standard input")
    add.set_defaults(func=run_add)
    listing = actions.add_parser("list", help="list users")
    add_data_option(listing)
    listing.set_defaults(func=run_list)
    passwd = actions.add_parser(
        "passwd", help="set a user's password, or --reset it to a one-time password they must replace at log-in"
    )
    add_data_option(passwd)
    passwd.add_argument("name")
    passwd.add_argument("--password-stdin", action="store_true")
    passwd.add_argument(
        "--reset",
        action="store_true",
        help="print a new one-time password to hand over; its owner must replace it at the next log-in",
    )
    passwd.set_defaults(func=run_passwd)
    email = actions.add_parser("email", help="set (or --clear) the address a single sign-on login is matched by")
    add_data_option(email)
    email.add_argument("name")
    email.add_argument("address", nargs="?", default="")
    email.add_argument("--clear", action="store_true", help="remove the account's e-mail address")
    email.set_defaults(func=run_email)
    for action, disabled in (("disable", True), ("enable", False)):
        sub = actions.add_parser(action, help=f"{action} a user's account (history is kept)")
        add_data_option(sub)
        sub.add_argument("name")
        sub.set_defaults(func=lambda args, disabled=disabled: run_disable(args, disabled))
    users.set_defaults(func=lambda _args: users.print_help() or 2)


def run_add(args: argparse.Namespace) -> int:
    from annotator.domain.settings import parse_languages
    from annotator.services.accounts import FirstAccountNotLead, MissingLanguages, add_user

    project = open_project(args)
    langs = parse_languages(args.languages) if args.languages.strip() else ()
    try:
        user = add_user(project, args.name, args.role, langs, _password(args), args.display_name, args.email or None)
    except MissingLanguages as error:  # the service's rule, said with the flag that gives the languages
        raise UserError(f"{str(error).rstrip('.')} (--languages IT,DE).") from None
    except FirstAccountNotLead as error:
        raise UserError(f"{error} Add it with --role lead.") from None
    print(
        f"Added {user.role.value} {user.name}"
        + (f" ({', '.join(user.languages)})" if user.languages else "")
        + (f" <{user.email}>" if user.email else "")
    )
    return 0


def run_email(args: argparse.Namespace) -> int:
    from annotator.services.accounts import set_email

    if args.clear == bool(args.address.strip()):
        raise UserError("Give either an e-mail address or --clear.")
    address = set_email(open_project(args), args.name, None if args.clear else args.address)
    print(f"E-mail address of {args.name}: {address}" if address else f"Removed the e-mail address of {args.name}")
    return 0


def run_list(args: argparse.Namespace) -> int:
    from annotator.services.accounts import list_users

    users = list_users(open_project(args))
    print_table(
        ["name", "role", "languages", "status", "e-mail", "display name"],
        [
            [
                u.name,
                u.role.value,
                ",".join(u.languages) or "all",
                "disabled" if u.disabled else "active",
                u.email or "",
                u.display_name,
            ]
            for u in users
        ],
    )
    return 0


def run_passwd(args: argparse.Namespace) -> int:
    from annotator.services.accounts import reset_password, set_password

    if args.reset:
        if args.password_stdin:
            raise UserError("--reset makes the password itself: leave out --password-stdin.")
        password = reset_password(open_project(args), args.name)
        print(f"One-time password for {args.name} (hand it over privately; it must be replaced at the next log-in):")
        print(password)
        return 0
    set_password(open_project(args), args.name, _password(args))
    print(f"Password changed for {args.name}")
    return 0


def run_disable(args: argparse.Namespace, disabled: bool) -> int:
    from annotator.services.accounts import set_disabled

    set_disabled(open_project(args), args.name, disabled)
    print(f"{'Disabled' if disabled else 'Enabled'} {args.name}")
    return 0
