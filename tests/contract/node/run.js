// Runs the published @anvilco/anvil client against our service, as an integrator would.
// Only the base URL changes, with the lines of docs/clients.md (test_client_setup.py keeps the
// two equal). Usage: node run.js <baseURL> <apiKey> <command> [json-args]
// Prints one JSON line: {statusCode, errors, bytes?, data?}; binary results go to args.out.
const fs = require('fs')
const Anvil = require('@anvilco/anvil')

async function main () {
  const [BASE_URL, API_KEY, command, rawArgs] = process.argv.slice(2)
  const args = rawArgs ? JSON.parse(rawArgs) : {}
  // docs/clients.md, @anvilco/anvil: begin
  const anvil = new Anvil({ apiKey: API_KEY, baseURL: BASE_URL })
  // docs/clients.md, @anvilco/anvil: end
  const client = anvil
  let result
  if (command === 'fillPDF') {
    result = await client.fillPDF(args.templateId, args.payload, args.options || {})
  } else if (command === 'generatePDF') {
    result = await client.generatePDF(args.payload, args.options || {})
  } else if (command === 'requestREST') {
    // The client's own REST call with the caller's headers (an Idempotency-Key, for example).
    result = await client.requestREST(args.url, { method: 'POST', body: JSON.stringify(args.payload), headers: { 'Content-Type': 'application/json', ...(args.headers || {}) } }, { dataType: args.dataType || 'buffer' })
  } else if (command === 'requestGraphQL') {
    result = await client.requestGraphQL({ query: args.query, variables: args.variables || {} }, { dataType: 'json' })
  } else if (command === 'createEtchPacket') {
    // Files named in args.uploads ({fileIndex: path}) go up as multipart parts, as integrators
    // send them with Anvil.prepareGraphQLFile.
    const variables = args.variables
    for (const [index, path] of Object.entries(args.uploads || {})) {
      variables.files[Number(index)].file = Anvil.prepareGraphQLFile(fs.readFileSync(path), { filename: 'upload.pdf' })
    }
    // responseQuery and mutation: the client's documented options (what to select; a mutation of
    // the integrator's own, for arguments its default one does not declare).
    result = await client.createEtchPacket({ variables, responseQuery: args.responseQuery, mutation: args.mutation })
  } else if (command === 'generateEtchSignUrl') {
    const { statusCode, url, errors } = await client.generateEtchSignUrl({ variables: args.variables })
    result = { statusCode, errors, data: { url } }
  } else if (command === 'getEtchPacket') {
    result = await client.getEtchPacket({ variables: args.variables })
  } else if (command === 'forgeSubmit') {
    result = await client.forgeSubmit({ variables: args.variables })
  } else if (command === 'removeWeldData') {
    result = await client.removeWeldData({ variables: args.variables })
  } else if (command === 'twoFills') {
    // The client configures its throttle from the first response's rate-limit headers.
    const started = Date.now()
    const first = await client.fillPDF(args.templateId, args.payload)
    const second = await client.fillPDF(args.templateId, args.payload)
    result = { statusCode: second.statusCode, data: { statuses: [first.statusCode, second.statusCode], elapsedMs: Date.now() - started, limitTokens: client.limitTokens, limitIntervalMs: client.limitIntervalMs } }
  } else {
    throw new Error(`unknown command ${command}`)
  }
  const report = { statusCode: result.statusCode, errors: result.errors || null }
  if (Buffer.isBuffer(result.data)) {
    fs.writeFileSync(args.out, result.data)
    report.bytes = result.data.length
  } else {
    report.data = result.data === undefined ? null : result.data
  }
  process.stdout.write(JSON.stringify(report) + '\n')
}

main().catch((error) => {
  process.stdout.write(JSON.stringify({ crash: String(error && error.stack || error) }) + '\n')
})
