// The packet builder's request (packet.js): its documents, fields and signers as
// createEtchPacket's arguments, which builders/packet_views.py passes on; and its refusal's
// problems marked on the boxes they name.

function base64(bytes) {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(text);
}

// createEtchPacket's arguments, in the builder's request: each document with its placed
// fields, each signer with the fields given to them (placed ones and a template's own).
export function packetRequest(state, name) {
  const files = state.docs.map((doc) => {
    const fields = state.fields
      .filter((f) => f.docId === doc.id)
      .map((f) => ({ id: f.id, type: f.type, pageNum: f.page, rect: f.rect }));
    const source = doc.castEid
      ? { castEid: doc.castEid }
      : {
          file: {
            data: base64(doc.upload.bytes),
            filename: doc.upload.filename,
            mimetype: "application/pdf",
          },
        };
    return { id: doc.id, title: doc.title, ...source, fields };
  });
  const signers = state.signers.map((signer) => {
    const own = state.fields.filter((f) => f.signer === signer.id);
    const given = state.docs.flatMap((doc) =>
      doc.templateFields
        .filter((f) => f.signer === signer.id)
        .map((f) => ({ fileId: doc.id, fieldId: f.id })),
    );
    return {
      id: signer.id,
      name: signer.name,
      email: signer.email,
      signerType: signer.signerType,
      routingOrder: signer.routingOrder,
      fields: [...own.map((f) => ({ fileId: f.docId, fieldId: f.id })), ...given],
    };
  });
  return { name, files, signers };
}

// The inputs a refusal's problems name (createEtchPacket's paths: "name", "signers.0.email"),
// marked invalid until they are typed in again; how many were marked.
export function markProblems(root, state, fields) {
  for (const node of root.querySelectorAll("[aria-invalid=true]")) {
    node.removeAttribute("aria-invalid");
  }
  let marked = 0;
  for (const { property } of fields || []) {
    const signer = /^signers\.(\d+)\.(name|email)\b/.exec(property);
    const id = signer
      ? state.signers[Number(signer[1])] && `pb-${state.signers[Number(signer[1])].id}-${signer[2]}`
      : property === "name"
        ? "pb-name"
        : null;
    const node = id && root.querySelector(`#${id}`);
    if (!node) continue;
    node.setAttribute("aria-invalid", "true");
    node.addEventListener("input", () => node.removeAttribute("aria-invalid"), { once: true });
    if (!marked) node.focus();
    marked += 1;
  }
  return marked;
}
