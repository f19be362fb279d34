"""The validation data a signed file carries (its DSS, and each signature's revocation-info
attribute), and the PAdES level a signature's structure reaches with it. Pure Python (no Django);
esign.engine.verify_checks uses them."""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass

from asn1crypto import crl as asn1_crl
from asn1crypto import ocsp as asn1_ocsp
from asn1crypto import x509 as asn1_x509
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.general import find_unique_cms_attribute
from pyhanko.sign.validation import (
    EmbeddedPdfSignature,
)
from pyhanko.sign.validation.dss import DocumentSecurityStore, NoDSSFoundError

from esign.engine.pdf_signatures import file_certificates
from esign.engine.revocation import authentic_revocation_data

logger = logging.getLogger(__name__)

PADES_SUBFILTER = "/ETSI.CAdES.detached"


@dataclass(frozen=True)
class Dss:
    certificates: tuple[asn1_x509.Certificate, ...]
    crls: tuple[bytes, ...]
    ocsps: tuple[bytes, ...]

    @property
    def certificate_hashes(self) -> frozenset[bytes]:
        return frozenset(c.sha256 for c in self.certificates)

    @functools.cached_property
    def crl_issuers(self) -> frozenset[bytes]:
        """The DER names of the issuers of the CRLs (unreadable ones left out)."""
        issuers = set()
        for data in self.crls:
            try:
                issuers.add(asn1_crl.CertificateList.load(data).issuer.dump())
            except ValueError:
                continue
        return frozenset(issuers)

    @functools.cached_property
    def ocsp_serials(self) -> frozenset[int]:
        """The serial numbers the OCSP responses answer for (unreadable ones left out)."""
        serials = set()
        for data in self.ocsps:
            try:
                basic = asn1_ocsp.OCSPResponse.load(data).basic_ocsp_response
                for response in basic["tbs_response_data"]["responses"]:
                    serials.add(response["cert_id"]["serial_number"].native)
            except (ValueError, KeyError, TypeError):
                continue
        return frozenset(serials)


NO_DSS = Dss((), (), ())


def dss_of(reader: PdfFileReader) -> Dss:
    """The file's document security store: its certificates, CRLs and OCSP responses."""
    try:
        store = DocumentSecurityStore.read_dss(reader)
        return Dss(
            tuple(
                asn1_x509.Certificate.load(ref.get_object().data) for ref in store.certs.values()
            ),
            tuple(ref.get_object().data for ref in store.crls),
            tuple(ref.get_object().data for ref in store.ocsps),
        )
    except NoDSSFoundError:
        return NO_DSS
    except MemoryError:
        raise
    except Exception:  # noqa: BLE001 - a broken store counts as none
        logger.info("verify: unreadable document security store", exc_info=True)
        return NO_DSS


def authentic_dss(dss: Dss, reader: PdfFileReader, roots: list[asn1_x509.Certificate]) -> Dss:
    """The store with only the revocation data that chains to the issuer of what it answers
    for (esign.engine.revocation): for trust and for B-LT coverage alike."""
    crls, ocsps = authentic_revocation_data(
        dss.crls, dss.ocsps, [*dss.certificates, *file_certificates(reader)], roots
    )
    return Dss(dss.certificates, crls, ocsps)


def embedded_revocation_data(embedded: EmbeddedPdfSignature) -> tuple[list[bytes], list[bytes]]:
    """The CRLs and OCSP responses of a signature's Adobe revocation-info attribute."""
    try:
        archival = find_unique_cms_attribute(
            embedded.signer_info["signed_attrs"], "adobe_revocation_info_archival"
        )
        return (
            [crl.dump() for crl in archival["crl"] or ()],
            [ocsp.dump() for ocsp in archival["ocsp"] or ()],
        )
    except MemoryError:
        raise
    except Exception:  # noqa: BLE001 - absent (the usual case) or unreadable: none
        return [], []


def names_revocation_source(certificate: asn1_x509.Certificate) -> bool:
    return bool(certificate.crl_distribution_points or certificate.ocsp_urls)


def chain_of(
    certificate: asn1_x509.Certificate, known: list[asn1_x509.Certificate]
) -> list[asn1_x509.Certificate]:
    """``certificate`` and its issuers found among ``known``, up to a self-issued one."""
    by_subject = {c.subject.dump(): c for c in known}
    chain = [certificate]
    while chain[-1].issuer != chain[-1].subject and len(chain) < 10:
        issuer = by_subject.get(chain[-1].issuer.dump())
        if issuer is None or issuer in chain:
            break
        chain.append(issuer)
    return chain


def is_covered(certificate: asn1_x509.Certificate, dss: Dss) -> bool:
    """Whether the DSS holds the certificate and, when it names a source of revocation data,
    revocation data about it: a CRL of its issuer, or an OCSP response for its serial number."""
    if certificate.sha256 not in dss.certificate_hashes:
        return False
    if not names_revocation_source(certificate):
        return True
    return certificate.serial_number in dss.ocsp_serials or (
        certificate.issuer.dump() in dss.crl_issuers
    )


def pades_level(
    embedded: EmbeddedPdfSignature,
    intact: bool,
    timestamped: bool,
    dss: Dss,
    latest_timestamp_revision: int,
    timestamp_certificate: asn1_x509.Certificate | None = None,
) -> str | None:
    """The PAdES level: B-LT only when the DSS covers the signer's own chain (each certificate
    but the root, with revocation data for those that name a source) and the signature
    timestamp's; B-LTA when a trusted document timestamp follows as well."""
    if str(embedded.sig_object.get("/SubFilter")) != PADES_SUBFILTER or not intact:
        return None
    if not timestamped:
        return "PAdES-B-B"
    known = [*dss.certificates, *embedded.other_embedded_certs]
    chains = [chain_of(embedded.signer_cert, known)]
    if timestamp_certificate is not None:
        chains.append(chain_of(timestamp_certificate, known))
    for chain in chains:
        issued = [c for c in chain if c.issuer != c.subject]  # the root needs no coverage
        if not all(is_covered(c, dss) for c in issued):
            return "PAdES-B-T"
    if latest_timestamp_revision > embedded.signed_revision:
        return "PAdES-B-LTA"
    return "PAdES-B-LT"
