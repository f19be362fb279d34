"""A PKCS#11 library lists its tokens when it is initialized, once per process: a token it did
not see then (an HSM that came back, a SoftHSM2 store read while another process wrote it) stayed
invisible, and every seal of that worker failed with "No token matching" (bench/burst.py saw one
of its two workers fail all 55 of its seals). The credentials now initialize the library again
when no token matches, and find it. Run in a fresh process: the library must be loaded before
the token exists."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.esign.sealpki import softhsm_available

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import os, sys, tempfile
from pathlib import Path
sys.path.insert(0, {root!r})
empty = Path(tempfile.mkdtemp(prefix="softhsm-empty-"))
(empty / "tokens").mkdir()
(empty / "softhsm2.conf").write_text(
    f"directories.tokendir = {{empty / 'tokens'}}\\nobjectstore.backend = file\\nlog.level = ERROR\\n"
)
os.environ["SOFTHSM2_CONF"] = str(empty / "softhsm2.conf")
import pkcs11
from tests.esign.sealpki import SOFTHSM_MODULE, TOKEN_LABEL, softhsm_key
labels = [t.label for t in pkcs11.lib(SOFTHSM_MODULE).get_tokens()]
assert TOKEN_LABEL not in labels, labels  # loaded while there is no such token
key = softhsm_key()  # the token appears after the library was loaded
from esign.engine.seal_credentials import load_credentials
print("loaded:", load_credentials(key).subject)
"""


@pytest.mark.skipif(not softhsm_available(), reason="SoftHSM2 and pkcs11-tool are not installed")
def test_a_token_the_library_did_not_see_when_loaded_is_found() -> None:
    run = subprocess.run(
        [sys.executable, "-c", SCRIPT.format(root=str(ROOT))],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert run.returncode == 0, run.stderr[-3000:]
    assert "loaded: " in run.stdout


@pytest.mark.skipif(not softhsm_available(), reason="SoftHSM2 and pkcs11-tool are not installed")
def test_a_key_loaded_before_the_library_was_initialized_again_is_loaded_anew() -> None:
    """Initializing the library again ends every session it had: credentials loaded through it
    are forgotten, not handed out with a dead session (SessionHandleInvalid at the next seal)."""
    from dataclasses import replace
    from datetime import UTC, datetime

    from esign.engine.seal import seal_pdf
    from esign.engine.seal_credentials import SealKeyUnavailable, load_credentials
    from tests.esign.conftest import contract_pdf
    from tests.esign.sealpki import softhsm_key

    key = softhsm_key()
    before = load_credentials(key)
    with pytest.raises(SealKeyUnavailable):
        load_credentials(replace(key, token_label="no-such-token"))  # initializes it again

    after = load_credentials(key)

    assert after is not before
    sealed = seal_pdf(contract_pdf(1), credentials=after, signing_time=datetime.now(UTC))
    assert b"/ByteRange" in sealed  # a live session signed
