"""E-signature's settings, imported whole by config.settings: the seal and its keys (an HSM or
development files), the signer CA, the qualified signers' provider, the retries of signing emails
and seals, archive timestamp renewal, verification's limits and workers, and bulk sends. What the
signing page takes from a signer is config.settings_public_pages.
"""

from pathlib import Path

from config.settings_environment import DATA_DIR, env

# --- Sealing and verification (owned by esign/) ------------------------------------------------
# Completed packets' documents are sealed with a PAdES signature (esign.sealing.seal). The key lives
# in an HSM reached through PKCS#11 when SEAL_PKCS11_MODULE is set; otherwise a software key and a
# self-signed CA are made on first run in SEAL_DEV_DIR, labelled DEVELOPMENT in their subjects.
SEAL_PKCS11_MODULE = env.str("SEAL_PKCS11_MODULE", default="")
SEAL_PKCS11_TOKEN_LABEL = env.str("SEAL_PKCS11_TOKEN_LABEL", default="")
SEAL_PKCS11_KEY_LABEL = env.str("SEAL_PKCS11_KEY_LABEL", default="")
SEAL_PKCS11_CERT_LABEL = env.str("SEAL_PKCS11_CERT_LABEL", default="")
SEAL_PKCS11_PIN = env.str("SEAL_PKCS11_PIN", default="")
# PEM bundle of the certificates that issued the seal's (empty: the others on the token).
SEAL_CERT_CHAIN_FILE = env.str("SEAL_CERT_CHAIN_FILE", default="")
SEAL_DEV_DIR = Path(env.str("SEAL_DEV_DIR", default=str(DATA_DIR / "seal-dev")))
# RFC 3161 timestamp authorities, tried in order; with any, seals are PAdES-B-LTA.
SEAL_TSA_URLS = env.list("SEAL_TSA_URLS", default=[])
SEAL_TSA_TIMEOUT_SECONDS = env.float("SEAL_TSA_TIMEOUT_SECONDS", default=10.0)
# PEM bundle of further trusted roots: earlier seal CAs, partners' signing CAs (sealing and
# /verify). Without SEAL_TSA_TRUST_ROOTS_FILE, also the TSAs' roots: a root its certificates in
# the file show to be a TSA's (id-kp-timeStamping) then vouches for timestamps only.
SEAL_TRUST_ROOTS_FILE = env.str("SEAL_TRUST_ROOTS_FILE", default="")
# PEM bundle of the roots of timestamp authorities: trusted for timestamps only, never for a
# document signature. Set, the roots of SEAL_TRUST_ROOTS_FILE are trusted for signatures only.
SEAL_TSA_TRUST_ROOTS_FILE = env.str("SEAL_TSA_TRUST_ROOTS_FILE", default="")
# The signer CA (esign.sealing.signer_ca): it issues each "advanced" signer a certificate valid
# for an hour around their signature. Its key in an HSM (SIGNER_CA_PKCS11_*, as the seal's), or
# PEM files (SIGNER_CA_KEY_FILE, SIGNER_CA_CERT_FILE); neither: a development signer CA made in
# SEAL_DEV_DIR. SIGNER_CA_CHAIN_FILE: its issuers, root included (verification trusts that root).
SIGNER_CA_PKCS11_MODULE = env.str("SIGNER_CA_PKCS11_MODULE", default="")
SIGNER_CA_PKCS11_TOKEN_LABEL = env.str("SIGNER_CA_PKCS11_TOKEN_LABEL", default="")
SIGNER_CA_PKCS11_KEY_LABEL = env.str("SIGNER_CA_PKCS11_KEY_LABEL", default="")
SIGNER_CA_PKCS11_CERT_LABEL = env.str("SIGNER_CA_PKCS11_CERT_LABEL", default="")
SIGNER_CA_PKCS11_PIN = env.str("SIGNER_CA_PKCS11_PIN", default="")
SIGNER_CA_KEY_FILE = env.str("SIGNER_CA_KEY_FILE", default="")
SIGNER_CA_CERT_FILE = env.str("SIGNER_CA_CERT_FILE", default="")
SIGNER_CA_CHAIN_FILE = env.str("SIGNER_CA_CHAIN_FILE", default="")
# Qualified signers' remote signing provider (esign.sealing.qualified): a Cloud Signature
# Consortium API v2 service (CSC_BASE_URL ends in /csc/v2; CSC_OAUTH_URL is its OAuth 2.0 server,
# blank: the API's) and this service's OAuth client there. For every organization without a
# provider of its own (the admin's "Qualified providers"). Its URLs pass the address guard
# (FETCH_ALLOW_* for a private one); each request has CSC_TIMEOUT_SECONDS.
CSC_PROVIDER_NAME = env.str("CSC_PROVIDER_NAME", default="")
CSC_BASE_URL = env.str("CSC_BASE_URL", default="")
CSC_OAUTH_URL = env.str("CSC_OAUTH_URL", default="")
CSC_CLIENT_ID = env.str("CSC_CLIENT_ID", default="")
CSC_CLIENT_SECRET = env.str("CSC_CLIENT_SECRET", default="")
CSC_TIMEOUT_SECONDS = env.float("CSC_TIMEOUT_SECONDS", default=20.0)
# Seconds a signing email's send may take before the worker's sweep counts it lost (its worker
# was killed) and sends it again.
SIGNER_EMAIL_LEASE_SECONDS = env.float("SIGNER_EMAIL_LEASE_SECONDS", default=120.0)
# Seconds before each retry of a signing email the mail server refused (then it is failed, and
# the packet's audit trail says so): about 15 hours in all.
SIGNER_EMAIL_RETRY_DELAYS = [
    float(value)
    for value in env.list(
        "SIGNER_EMAIL_RETRY_DELAYS", default=["30", "300", "1800", "7200", "43200"]
    )
]
# createEtchPacket waits while the oldest packet seal a worker could start has waited more than
# PACKET_INTAKE_MAX_SEAL_WAIT_SECONDS, and goes on when the seals catch up (esign.sending.intake):
# the workers seal fewer packets than the API takes, and a packet taken at once would only
# lengthen the wait of those already signed. Signers never wait. Each server process holds at
# most PACKET_INTAKE_WAITING such requests (each keeps a thread) for at most
# PACKET_INTAKE_MAX_WAIT_SECONDS; beyond either, RateLimitError with a Retry-After, nothing made.
# PACKET_INTAKE_MAX_SEAL_WAIT_SECONDS=0: new packets never wait.
PACKET_INTAKE_MAX_SEAL_WAIT_SECONDS = env.float("PACKET_INTAKE_MAX_SEAL_WAIT_SECONDS", default=3.0)
PACKET_INTAKE_MAX_WAIT_SECONDS = env.float("PACKET_INTAKE_MAX_WAIT_SECONDS", default=20.0)
# Three quarters of a server process's threads (gunicorn.conf.py: GUNICORN_THREADS, 16): the
# rest stay free for signers and everything else while new packets wait.
PACKET_INTAKE_WAITING = env.int(
    "PACKET_INTAKE_WAITING", default=max(1, env.int("GUNICORN_THREADS", default=16) * 3 // 4)
)
# Seconds before each retry of a seal that failed (no TSA answered, the HSM was away): about five
# days in all, each give or take 10 %; then the packet is marked failed for an operator.
SEAL_RETRY_DELAYS = [
    float(d)
    for d in env.list(
        "SEAL_RETRY_DELAYS",
        default=["30", "120", "600", "1800", "3600", "7200", "14400", "28800", "43200"]
        + ["86400", "86400", "86400", "86400"],
    )
]
# A seal task still running this long after it started was lost with its worker (killed): the
# sweep marks it failed and enqueues the packet's sealing again. Longer than any real attempt.
SEAL_LEASE_SECONDS = env.float("SEAL_LEASE_SECONDS", default=300.0)
# Archive timestamp renewal (esign.sealing.renewal): a PAdES-B-LTA file gets a new document
# timestamp this many days before its last timestamp's certificates expire; a renewal that fails
# is tried again after SEAL_RENEWAL_RETRY_SECONDS.
# Each sealed document (and the merged PDF) carries the certificate of completion as an
# embedded, associated file (/AF), covered by the seal.
SEAL_EMBED_AUDIT_TRAIL = env.bool("SEAL_EMBED_AUDIT_TRAIL", default=False)
SEAL_RENEWAL_MARGIN_DAYS = env.int("SEAL_RENEWAL_MARGIN_DAYS", default=90)
SEAL_RENEWAL_RETRY_SECONDS = env.float("SEAL_RENEWAL_RETRY_SECONDS", default=6 * 3600.0)
# Largest PDF the verification page and POST /api/v1/verify accept (kept in memory, never stored).
VERIFY_MAX_BYTES = env.int("VERIFY_MAX_BYTES", default=25 * 1_048_576)
# Verifications a client address may run on the public /verify page per minute (each one parses
# a PDF and checks its signatures; the API's /api/v1/verify counts against the caller's key).
VERIFY_PAGE_PER_MINUTE = env.int("VERIFY_PAGE_PER_MINUTE", default=20)
# Structural limits, checked on the raw bytes before anything is parsed (a 422 above them):
# one signature's /Contents (DER bytes), revisions, indirect objects, signatures in the file.
VERIFY_MAX_SIGNATURE_CONTENTS_BYTES = env.int(
    "VERIFY_MAX_SIGNATURE_CONTENTS_BYTES", default=1_048_576
)
VERIFY_MAX_REVISIONS = env.int("VERIFY_MAX_REVISIONS", default=100)
VERIFY_MAX_OBJECTS = env.int("VERIFY_MAX_OBJECTS", default=200_000)
VERIFY_MAX_SIGNATURES = env.int("VERIFY_MAX_SIGNATURES", default=200)
# Every signature's contents together (hexadecimal or literal strings), and the compressed object
# streams, inflated (within this bound) to be scanned the same way: how many, and their bytes.
VERIFY_MAX_TOTAL_SIGNATURE_CONTENTS_BYTES = env.int(
    "VERIFY_MAX_TOTAL_SIGNATURE_CONTENTS_BYTES", default=8 * 1_048_576
)
VERIFY_MAX_OBJECT_STREAMS = env.int("VERIFY_MAX_OBJECT_STREAMS", default=5_000)
VERIFY_MAX_OBJECT_STREAM_BYTES = env.int("VERIFY_MAX_OBJECT_STREAM_BYTES", default=64 * 1_048_576)
# Verification runs in worker processes (esign.engine.verify_pool), never in the web process:
# at most VERIFY_WORKERS at once per server process, each within an address-space limit and a
# deadline (a 422 past either); a request waits VERIFY_QUEUE_TIMEOUT_SECONDS for a worker (503).
# The two times together (and a second for the scan) bound a verification's answer: 10 s.
VERIFY_WORKERS = env.int("VERIFY_WORKERS", default=2)
VERIFY_WORKER_MEMORY_MB = env.int("VERIFY_WORKER_MEMORY_MB", default=512)
VERIFY_TIMEOUT_SECONDS = env.float("VERIFY_TIMEOUT_SECONDS", default=6.0)
VERIFY_QUEUE_TIMEOUT_SECONDS = env.float("VERIFY_QUEUE_TIMEOUT_SECONDS", default=2.0)
# Verifications one client address may have under way at once, across every server process
# (esign.verify.slots); more are refused at once (429). Unset: half of VERIFY_WORKERS, at least 1.
# 0 for no bound.
VERIFY_MAX_PER_ADDRESS = env.int("VERIFY_MAX_PER_ADDRESS", default=None)
# Opt-in: fetch a signer's OCSP response or CRL when the file carries no revocation data for
# its certificate (through core.engine.fetch: FETCH_ALLOW_HOSTS/NETWORKS for private addresses),
# each request within VERIFY_REVOCATION_FETCH_SECONDS. Off: nothing is fetched.
VERIFY_ONLINE_REVOCATION = env.bool("VERIFY_ONLINE_REVOCATION", default=False)
VERIFY_REVOCATION_FETCH_SECONDS = env.float("VERIFY_REVOCATION_FETCH_SECONDS", default=2.0)

# Bulk sends (esign.bulk.sends, docs/esign.md): the most rows a batch may have; the largest CSV or
# XLSX file the admin reads; how many signing emails per second a batch may queue (the outgoing
# mail's rate: a batch sends its rows in chunks of this many emails per BULK_SEND_CHUNK_SECONDS,
# each chunk due only once the mail of the one before has had its time); after how long a chunk
# still running is taken to have died with its worker (the sweep then resumes the batch).
BULK_SEND_MAX_ROWS = env.int("BULK_SEND_MAX_ROWS", default=5000)
BULK_SEND_MAX_FILE_BYTES = env.int("BULK_SEND_MAX_FILE_BYTES", default=5 * 1024 * 1024)
BULK_SEND_EMAILS_PER_SECOND = env.float("BULK_SEND_EMAILS_PER_SECOND", default=25.0)
BULK_SEND_CHUNK_SECONDS = env.float("BULK_SEND_CHUNK_SECONDS", default=4.0)
BULK_SEND_LEASE_SECONDS = env.float("BULK_SEND_LEASE_SECONDS", default=120.0)
# An XLSX upload is read in an upload-check worker (esign.engine.spreadsheets), refused before it
# is parsed when its parts together are larger than this once unzipped (as its zip directory
# declares them), when one part of over 1 MB is compressed more than this ratio to 1 (a zip
# bomb), or when its first sheet declares or yields more cells than this.
BULK_SPREADSHEET_MAX_UNZIPPED_BYTES = env.int(
    "BULK_SPREADSHEET_MAX_UNZIPPED_BYTES", default=50 * 1_048_576
)
BULK_SPREADSHEET_MAX_COMPRESSION_RATIO = env.int(
    "BULK_SPREADSHEET_MAX_COMPRESSION_RATIO", default=100
)
BULK_SPREADSHEET_MAX_CELLS = env.int("BULK_SPREADSHEET_MAX_CELLS", default=250_000)
