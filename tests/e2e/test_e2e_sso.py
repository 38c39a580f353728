"""Issue 8, acceptance 3: single sign-on with Streamlit's ``st.login`` against a real local OpenID Connect provider.

``oidc-provider-mock`` (a real OIDC provider for tests: discovery, authorization code flow, signed ID tokens)
runs on 127.0.0.1; ``annotator serve --secrets`` reads an ``[auth]`` section pointing at it. In Chromium: a
translator whose account has the e-mail address signs in on the provider's form and lands on Curate with the
account's role and languages; reload keeps the login; logout signs out of the provider too and ends the login
in another browser, whose leftover provider identity does not bring it back. An unknown address,
an address the provider marks unverified, and a disabled account each get the "ask a lead for access" page and
nothing else of the app.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser import ROOT, free_port, new_context, settle, stop_server, wait_until_healthy
from playwright.sync_api import Browser, Page, expect

from annotator.project import Project
from annotator.services.accounts import set_disabled, set_email

pytestmark = pytest.mark.e2e

TRANSLATOR_EMAIL = "translator@example.org"
#: A user the provider knows with an unverified address (a one-click button on its authorization form).
UNVERIFIED = {"sub": "unverified-user", "email": TRANSLATOR_EMAIL, "email_verified": False}
LABEL = "Test provider"
#: The sidebar of the demo translator's account: its display name, role and languages from our database.
SIGNED_IN = "Signed in as Demo Translator (IT, DE) · translator · IT, DE"
NO_ACCESS = re.compile(r"Signed in as (.+), but this project has no access for you — ask a lead for access\.")


#: Loopback only: never through a proxy from the environment.
DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))
LOOPBACK = {"NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}


def wait_for_provider(url: str, process: subprocess.Popen[bytes], deadline_s: float = 30) -> dict[str, object]:
    """The provider's discovery document, once it answers (or a failure naming why it did not)."""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if process.poll() is not None:
            raise RuntimeError(f"oidc-provider-mock exited with {process.returncode}")
        try:
            with DIRECT.open(f"{url}/.well-known/openid-configuration", timeout=2) as response:
                return dict(json.load(response))
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"oidc-provider-mock did not answer on {url} within {deadline_s} s")


@pytest.fixture
def demo(demo: Path) -> Path:
    """The demo project (a fresh copy), the translator's account with the address the provider will give."""
    data = demo
    set_email(Project.open(data), "translator", TRANSLATOR_EMAIL)
    return data


@pytest.fixture
def provider_url(tmp_path: Path) -> Iterator[str]:
    port = free_port()
    command = [
        sys.executable, "-m", "oidc_provider_mock", "--host", "127.0.0.1", "--port", str(port),
        "--user-claims", json.dumps(UNVERIFIED),
    ]  # fmt: skip
    log = (tmp_path / "provider.log").open("wb")
    process = subprocess.Popen(command, cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        metadata = wait_for_provider(url, process)
        assert str(metadata["issuer"]).rstrip("/") == url
        yield url
    finally:
        stop_server(process)
        log.close()


@pytest.fixture
def app_url(tmp_path: Path, demo: Path, provider_url: str) -> Iterator[str]:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    secrets = tmp_path / "secrets.toml"  # written for this test only: never in the repository
    secrets.write_text(
        f'sso_label = "{LABEL}"\n'
        "[auth]\n"
        f'redirect_uri = "{url}/oauth2callback"\n'
        'cookie_secret = "a-test-cookie-secret-of-enough-length"\n'
        'client_id = "annotator-test"\n'
        'client_secret = "annotator-test-secret"\n'
        f'server_metadata_url = "{provider_url}/.well-known/openid-configuration"\n',
        encoding="utf-8",
    )
    env = {**os.environ, "PYTHONUNBUFFERED": "1", **LOOPBACK}  # the server fetches the provider's metadata and keys
    env.pop("ANNOTATOR_DATABASE_URL", None)
    env.pop("ANNOTATOR_SECRETS", None)
    command = [
        sys.executable, "-m", "annotator.cli", "serve", "--data", str(demo), "--port", str(port),
        "--secrets", str(secrets),
    ]  # fmt: skip
    log = (tmp_path / "app.log").open("wb")
    process = subprocess.Popen(command, env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_until_healthy(url, process)
        yield url
    finally:
        stop_server(process)
        log.close()


def sign_in_with_provider(page: Page, app_url: str, provider_url: str, subject: str | None) -> None:
    """From the app's login page through the provider's authorization form and back to the app.

    ``subject``: typed into the form (the provider then vouches for it as the e-mail address, without saying
    whether it verified it); None: the predefined user with the unverified address.
    """
    page.goto(app_url)
    page.get_by_role("button", name=f"Sign in with {LABEL}").click()
    expect(page).to_have_url(re.compile(re.escape(f"{provider_url}/oauth2/authorize")))
    expect(page.get_by_role("heading", name="Authorize Client")).to_be_visible()
    if subject is None:
        page.get_by_role("button", name=str(UNVERIFIED["sub"]), exact=True).click()
    else:
        page.get_by_placeholder("sub").fill(subject)
        page.get_by_role("button", name="Authorize").click()
    expect(page).to_have_url(re.compile("^" + re.escape(app_url)))


def refused(page: Page, email: str) -> None:
    """The "ask a lead for access" page, and nothing else of the app."""
    expect(page.get_by_text(NO_ACCESS)).to_be_visible()
    shown = page.get_by_text(NO_ACCESS).inner_text().replace("\u2060", "")  # md() keeps it from turning into a link
    assert f"Signed in as {email}, but" in shown
    settle(page)
    expect(page.get_by_role("heading", name="No access to this project")).to_be_visible()
    expect(page.get_by_role("button", name="Sign out")).to_be_visible()
    for absent in ("Curate", "Items", "Review"):
        expect(page.get_by_role("link", name=absent)).to_have_count(0)
    expect(page.get_by_role("textbox", name="Password")).to_have_count(0)
    expect(page.get_by_text("Signed in as Demo Translator")).to_have_count(0)


def new_page(browser: Browser) -> Page:
    context = new_context(browser, 1440, 1200)
    return context.new_page()


def test_single_sign_on_matches_the_account_by_email_and_refuses_everyone_else(
    app_url: str, provider_url: str, demo: Path, tmp_path: Path, chromium: Browser
) -> None:
    # the login page offers the provider beside the local form (local accounts stay the default)
    page = new_page(chromium)
    page.goto(app_url)
    expect(page.get_by_role("button", name=f"Sign in with {LABEL}")).to_be_visible()
    expect(page.get_by_role("textbox", name="Password")).to_be_visible()
    settle(page)
    page.screenshot(path=tmp_path / "sso-login.png")  # for a person to look at; never in docs/

    # the translator's address, in another case: logged in as that account, its role and languages
    sign_in_with_provider(page, app_url, provider_url, "Translator@Example.ORG")
    expect(page.get_by_text(SIGNED_IN)).to_be_visible()
    expect(page).to_have_url(re.compile(re.escape(f"{app_url}/curate")))
    expect(page.get_by_role("button", name="Next ▶")).to_be_visible()
    expect(page.get_by_role("link", name="Curate")).to_be_visible()
    expect(page.get_by_role("link", name="Review")).to_have_count(0)  # a translator: no lead pages
    settle(page)

    page.reload()  # the same session as a local login: the signed cookie brings it back
    expect(page.get_by_text(SIGNED_IN)).to_be_visible()
    settle(page)

    # the same person in another browser (its own provider identity cookie)
    other = new_page(chromium)
    sign_in_with_provider(other, app_url, provider_url, TRANSLATOR_EMAIL)
    expect(other.get_by_text(SIGNED_IN)).to_be_visible()
    settle(other)

    # logging out also signs out of the provider (its end-session page), then asks for a login again
    page.get_by_role("button", name="Log out").click()
    expect(page).to_have_url(re.compile(re.escape(f"{provider_url}/oauth2/end_session")))
    page.get_by_role("button", name="End session").click()
    expect(page.get_by_role("button", name=f"Sign in with {LABEL}")).to_be_visible()
    expect(page.get_by_text("Signed in as")).to_have_count(0)
    page.goto(app_url)  # and a new page load does not sign in again from a leftover cookie
    expect(page.get_by_role("button", name=f"Sign in with {LABEL}")).to_be_visible()
    settle(page)
    expect(page.get_by_text("Signed in as")).to_have_count(0)

    # the logout ended the other browser's session too, though its provider identity cookie is still
    # there: a reload asks to sign in again, and signing in again at the provider lets it back in
    other.reload()
    expect(other.get_by_text("Your session has ended. Please sign in again.")).to_be_visible()
    settle(other)
    expect(other.get_by_text("Signed in as")).to_have_count(0)
    other.get_by_role("button", name=f"Sign in with {LABEL}").click()
    expect(other.get_by_role("heading", name="Authorize Client")).to_be_visible()
    other.get_by_placeholder("sub").fill(TRANSLATOR_EMAIL)
    other.get_by_role("button", name="Authorize").click()
    expect(other.get_by_text(SIGNED_IN)).to_be_visible()

    # an address no account has: the "ask a lead" page; signing out leads back to the login page
    stranger = new_page(chromium)
    sign_in_with_provider(stranger, app_url, provider_url, "stranger@example.org")
    refused(stranger, "stranger@example.org")
    stranger.screenshot(path=tmp_path / "sso-no-access.png")
    stranger.get_by_role("button", name="Sign out").click()
    expect(stranger).to_have_url(re.compile(re.escape(f"{provider_url}/oauth2/end_session")))
    stranger.get_by_role("button", name="End session").click()
    expect(stranger.get_by_role("button", name=f"Sign in with {LABEL}")).to_be_visible()
    expect(stranger.get_by_text(NO_ACCESS)).to_have_count(0)

    # the translator's address, but the provider says it did not verify it: refused too
    unverified = new_page(chromium)
    sign_in_with_provider(unverified, app_url, provider_url, None)
    expect(unverified.get_by_text("has not verified this e-mail address")).to_be_visible()
    expect(unverified.get_by_text("ask a lead for access")).to_be_visible()
    settle(unverified)
    expect(unverified.get_by_role("link", name="Curate")).to_have_count(0)
    expect(unverified.get_by_text("Signed in as Demo Translator")).to_have_count(0)

    # a disabled account gets the same refusal as an unknown address
    set_disabled(Project.open(demo), "translator", True)
    disabled = new_page(chromium)
    sign_in_with_provider(disabled, app_url, provider_url, TRANSLATOR_EMAIL)
    refused(disabled, TRANSLATOR_EMAIL)
