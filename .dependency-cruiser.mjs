/**
 * The house's walls, checked on every `npm test` (test/walls/boundaries.test.ts runs this file
 * against src/ and workers/, and against a fixture tree that breaks each rule). `npm run walls`
 * runs it alone. Paths are relative to the repository root; node's built-in modules resolve to
 * their bare names (`node:fs` → `fs`), packages to `node_modules/<name>/…`.
 *
 * Only src/ and workers/ are cruised: tests and benchmarks may reach into any module they check.
 */

/** Modules that talk to the outside world: a pure room imports none of them. */
const IO_PACKAGES = 'node_modules/(bullmq|ioredis|redis|undici)/';
const IO_BUILTINS = '^(fs|net|http|https|http2|tls|dgram|dns|child_process)(/|$)';

/**
 * The layers of src/, bottom first (docs/development.md, "The house in two minutes"): a folder
 * imports only folders on a lower line, never one on its own line or above, so no two folders
 * can import each other. Type-only imports count (tsPreCompilationDeps). A new folder takes its
 * line here before it can import anything (layer-listed).
 */
export const LAYERS = [
  ['util'], // helpers that know nothing of shelfwatch
  ['model', 'ops'], // the shapes every room shares (Alert, Observation, DeferredError); logs and metrics
  ['api', 'sim'], // the API client and its simulator, both sealed
  ['snapshot', 'history'], // what is kept in Redis: the last observation, the series and the alert log
  ['rule-state'], // the rules' stored state and its codec
  ['rules'], // pure judgement, the alert kinds
  ['config-kit'], // the config's field kit: fields, secrets, problems, interpolation
  ['channels'], // the Notifier contract, rendering, one file per channel and their registry
  ['config'], // the assembly: the whole config's schema (channels, routes, workspaces) and its loading
  ['budget', 'silence', 'revisions'], // the request budget and planner; silences and mute windows; the config's revisions
  ['poll', 'deliver', 'arc'], // one poll; routing, grouping and sending; ARC invites
  ['digest'], // the daily digest
  ['jobs'], // queues, schedulers and the job wrappers
  ['app'], // the application: Runtime, start-up, status, the HTTP server
  ['console'], // the web console
  ['tools'], // the demo, the receivers, the private redis-server, the probe tooling
  ['cli'], // the commands
];

/** One rule per line of LAYERS, all named layer-order: from a folder to its own line or above. */
const layerRules = LAYERS.map((folders, i) => ({
  name: 'layer-order',
  comment:
    `src/{${folders.join(',')}} may import only the folders below it in LAYERS ` +
    '(docs/development.md): move the shared piece down, or the importer up.',
  severity: /** @type {const} */ ('error'),
  from: { path: `^src/(${folders.join('|')})/` },
  to: { path: `^src/(${LAYERS.slice(i).flat().join('|')})/`, pathNot: '^src/$1/' },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    ...layerRules,
    {
      name: 'layer-listed',
      comment: 'Every folder of src/ has its line in LAYERS, so the layer order judges its imports.',
      severity: 'error',
      from: { path: '^src/', pathNot: `^src/(${LAYERS.flat().join('|')})/` },
      to: {},
    },
    {
      name: 'no-cycle',
      comment:
        'No import cycles, type-only imports included (tsPreCompilationDeps): a cycle means two modules ' +
        'cannot be read, tested or moved apart. Move the shared shape to the lower module.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'api-sealed',
      comment:
        'src/api is the API client: it knows nothing of queues, Redis or the rest of src/ (src/util only).',
      severity: 'error',
      from: { path: '^src/api/' },
      to: { path: ['^(src|workers)/', 'node_modules/(bullmq|ioredis)/'], pathNot: '^src/(api|util)/' },
    },
    {
      name: 'sim-sealed',
      comment:
        'src/sim is the simulator of the API: it knows nothing of queues, Redis or the rest of src/ (src/util only).',
      severity: 'error',
      from: { path: '^src/sim/' },
      to: { path: ['^(src|workers)/', 'node_modules/(bullmq|ioredis)/'], pathNot: '^src/(sim|util)/' },
    },
    {
      name: 'rules-pure',
      comment:
        'src/rules judges observations: no I/O (Redis, queues, files, network) and nothing of delivery.',
      severity: 'error',
      from: { path: '^src/rules/' },
      to: { path: [IO_PACKAGES, IO_BUILTINS, '^src/deliver/'] },
    },
    {
      name: 'channels-know-no-rules',
      comment:
        'A delivery channel sends a rendered alert; what an alert means is the rules’ business ' +
        '(the renderers in src/channels/render/ read the kinds’ parts from src/rules/).',
      severity: 'error',
      from: { path: '^src/channels/', pathNot: '^src/channels/render/' },
      to: { path: '^src/rules/' },
    },
    {
      name: 'no-import-of-cli',
      comment: 'src/cli is the outermost room: it imports the others, never the other way round.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/cli/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'tools-outside-product',
      comment:
        'src/tools holds what runs beside the worker (the demo, the local receivers, the private Redis): ' +
        'only the CLI and the tools themselves import it, so no worker room depends on a dev tool.',
      severity: 'error',
      from: { path: '^(src|workers)/', pathNot: '^src/(cli|tools)/' },
      to: { path: '^src/tools/' },
    },
    {
      name: 'no-import-of-outer-folders',
      comment:
        'workers/ only wires processors to queues; test/ and bench/ check src/. Nothing in src/ imports them.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(workers|test|bench)/' },
    },
    {
      name: 'api-through-index',
      comment: 'Outside src/api, import the API client from src/api/index.ts: the files behind it may move.',
      severity: 'error',
      from: { pathNot: '^src/api/' },
      to: { path: '^src/api/', pathNot: '^src/api/(index|tooling)[.]ts$' },
    },
    {
      name: 'api-tooling-for-tools',
      comment:
        "src/api/tooling.ts hands the contract's working parts to the tools that write contracts (src/tools/probe); " +
        'the product imports src/api/index.ts.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(api|tools)/' },
      to: { path: '^src/api/tooling[.]ts$' },
    },
    {
      name: 'resolvable',
      comment: 'An import the checker cannot resolve is an import no rule above can judge.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    // Type-only imports are edges too: a cycle of types still ties the modules together.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
  },
};
