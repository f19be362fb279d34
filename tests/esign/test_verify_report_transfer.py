"""What the verify worker sends back: the report of a B-LTA file is plain data, not pyHanko's
objects. A field name as pyHanko reads it (TextStringObject) holds its reader, and with it the
whole file: pickled back from the worker it made the report of the bench's 1.1 MB file 2.4 MB,
and unpickling it in the web process cost more than the verification itself."""

from __future__ import annotations

import pickle
from datetime import UTC, datetime

from esign.engine.seal import seal_pdf
from esign.engine.seal_credentials import SoftwareKey, load_credentials
from esign.engine.seal_verify import verify_pdf
from esign.engine.timestamps import TsaConfig
from tests.esign.sealpki import asn1, shared_pki
from tests.esign.test_seal_engine import three_pages


def test_the_report_of_a_b_lta_file_is_small_plain_data() -> None:
    pki = shared_pki()
    key_pem, cert_pem = pki.software_seal()
    sealed = seal_pdf(
        three_pages(),
        credentials=load_credentials(SoftwareKey(key_pem, cert_pem, pki.ca_pem)),
        signing_time=datetime.now(UTC),
        tsa=TsaConfig(urls=(pki.tsa_url,)),
    )

    report = verify_pdf(sealed, trust_roots=[asn1(pki.certificate)])

    (signature,) = report.signatures
    (stamp,) = report.document_timestamps
    assert signature.level == "PAdES-B-LTA"
    assert type(signature.field_name) is str
    assert type(stamp.field_name) is str
    assert {type(name) for name in stamp.covers} == {str}
    assert len(pickle.dumps(report)) < 4096  # the file alone is larger than that
    assert len(sealed) > 4096
