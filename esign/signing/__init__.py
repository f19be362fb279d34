"""The signer's side: whose turn it is and a turn from its start (sending a packet) to its end
(finishing, with the signer's fields checked and stamped, or declining), forwarding a turn, the
files signers attach, and the signing page with the pages around it.

This face lists what other apps use; esign's own modules import the modules themselves."""

from __future__ import annotations

from esign.signing.turns import is_signers_turn

__all__ = ["is_signers_turn"]
