// Imports run one way (issue 15 §2): infrastructure below features, features without cycles between them.
// Run by `npm run lint:deps`, which .ci/run calls after the tests.
// test/unit/dependency-rules.test.ts holds the three lists to the folders src/ has: each in one, none that does not exist.
const FEATURES = "^src/(Auth|Orgs|Contractors|ContractorPortal|Batches|BatchRuns|Transfers|Funding|Health|OnDevice|Archive|Audit|Webhooks|Console|Crs|StellarRpc|Escrow)/"
const INFRASTRUCTURE = "^src/(Sql|EmbeddedPostgres|Http|Stellar|Observability|Domain|RateLimit|Workers)/|^src/Config\\.ts$"
// The start-up and the one composition root (main.ts, ServerBundle.ts, Launch.ts, App.ts) and what only it wires.
const COMPOSITION = "^src/(Server)/"

// dependency-cruiser 17 parses every TypeScript file with SWC's `tsx` off, so the console's .tsx pages fail to parse
// (sverweij/dependency-cruiser#1081, fixed in 18 by #1086); until then, the one SWC it loads parses .tsx as TSX.
const swc = require("@swc/core")
const parseFileSync = swc.parseFileSync
swc.parseFileSync = (file, options) => parseFileSync(file, file.endsWith(".tsx") ? { ...options, tsx: true } : options)

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "infrastructure-imports-no-feature",
      comment: "Sql, Http, Stellar, Observability, Domain, RateLimit, Workers and Config never import a feature (nor the composition root)",
      severity: "error",
      from: { path: INFRASTRUCTURE },
      to: { path: [FEATURES, COMPOSITION, "^src/Api\\.ts$"] }
    },
    {
      name: "features-do-not-import-the-composition-root",
      comment: "only src/Server/ composes the app; a feature reaches another through an interface src/Server/App.ts wires",
      severity: "error",
      from: { path: FEATURES },
      to: { path: COMPOSITION }
    },
    {
      name: "only-handlers-import-the-api",
      comment: "a feature's Http.ts implements the whole HttpApi (the HttpApi pattern); nothing else in a feature needs it",
      severity: "error",
      from: { path: FEATURES, pathNot: "/Http\\.ts$" },
      to: { path: "^src/Api\\.ts$" }
    },
    {
      name: "the-client-imports-only-the-contract",
      comment: "the typed client package (client/src) imports the contract (src/Api.ts, the features' Api files and " +
        "the schemas they use, src/Domain) and libraries, never the server's implementation",
      severity: "error",
      from: { path: "^client/src/" },
      to: {
        path: "^src/",
        pathNot: "^src/(Api\\.ts$|Domain/|[A-Za-z]+/Api\\.ts$|Audit/(AuditRecord|ExportsApi)\\.ts$|Auth/(ApiKeysApi|Scopes)\\.ts$)"
      }
    },
    {
      name: "the-console-reaches-the-service-only-through-the-client",
      comment: "the web console (console/src) imports libraries, itself and the typed client package, never src/ nor " +
        "another file of client/src: what it knows of the service is the contract as the package exports it. It names " +
        "the package's contract entry @confidential-payroll/client/contract (client/src/Contract.ts, by console/" +
        "tsconfig.json's paths and vite.config.ts's alias) and its sealing entry @confidential-payroll/client/sealing " +
        "(client/src/sealing/index.ts, the same way; loaded by the pages only with import()), its escrow entry " +
        "@confidential-payroll/client/escrow (client/src/escrow/index.ts, the same way), and its confidential entry " +
        "@confidential-payroll/client/confidential (client/src/confidential/index.ts, the same way; imported by " +
        "console/src/confidential/, loaded with import()) — matched here by name, as the paths need TypeScript's API " +
        "to resolve from console/ — or a path into client/src/Contract.ts or client/src/index.ts",
      severity: "error",
      from: { path: "^console/src/" },
      to: { pathNot: "^(console/src/|client/src/(Contract|index)\\.ts$|client/src/(sealing|confidential|escrow)/index\\.ts$|node_modules/|@confidential-payroll/client/(contract|sealing|confidential|escrow)$)" }
    },
    {
      name: "the-server-imports-nothing-from-the-client",
      comment: "the client imports the contract, so a server module importing the client would tie the two in a cycle: " +
        "what both need (the CRS rule, Domain/Crs.ts) lives in the contract, which the client may import",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "^client/" }
    },
    {
      name: "no-folder-cycles",
      comment: "features do not import each other in cycles (the root folder, where Api.ts composes their contracts, aside)",
      severity: "error",
      scope: "folder",
      from: { path: "^src/[^/]+$" },
      to: { path: "^src/[^/]+$", circular: true }
    },
    {
      name: "no-module-cycles",
      severity: "error",
      from: { path: "^src/" },
      to: { circular: true }
    }
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    // TypeScript 7 (the native compiler) has no JavaScript API for dependency-cruiser to parse with: SWC does.
    parser: "swc",
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: [".ts", ".tsx", ".js"] }
  }
}
