import { pep503 } from '../../repo/manifests/python-names.js';

/**
 * Import names whose distribution is spelled differently (`import yaml` comes from PyYAML). Each
 * entry lists the PEP 503 names of distributions that provide the top-level module.
 */
const PROVIDERS: Record<string, string[]> = {
  yaml: ['pyyaml', 'ruamel-yaml'],
  PIL: ['pillow'],
  cv2: ['opencv-python', 'opencv-contrib-python', 'opencv-python-headless'],
  sklearn: ['scikit-learn'],
  skimage: ['scikit-image'],
  bs4: ['beautifulsoup4'],
  dateutil: ['python-dateutil'],
  jwt: ['pyjwt'],
  dotenv: ['python-dotenv'],
  attr: ['attrs'],
  serial: ['pyserial'],
  Crypto: ['pycryptodome', 'pycrypto'],
  Cryptodome: ['pycryptodomex'],
  OpenSSL: ['pyopenssl'],
  git: ['gitpython'],
  docx: ['python-docx'],
  pptx: ['python-pptx'],
  zmq: ['pyzmq'],
  usb: ['pyusb'],
  MySQLdb: ['mysqlclient'],
  pkg_resources: ['setuptools'],
  jose: ['python-jose'],
  multipart: ['python-multipart'],
  socketio: ['python-socketio'],
  engineio: ['python-engineio'],
  telegram: ['python-telegram-bot'],
  slugify: ['python-slugify'],
  Levenshtein: ['python-levenshtein', 'levenshtein'],
  win32api: ['pywin32'],
  win32con: ['pywin32'],
  pythoncom: ['pywin32'],
  pywintypes: ['pywin32'],
  gi: ['pygobject'],
  fitz: ['pymupdf'],
  magic: ['python-magic'],
  ldap: ['python-ldap'],
  dns: ['dnspython'],
  nacl: ['pynacl'],
  websocket: ['websocket-client'],
  kafka: ['kafka-python'],
  faiss: ['faiss-cpu', 'faiss-gpu'],
  grpc: ['grpcio'],
  github: ['pygithub'],
  telebot: ['pytelegrambotapi'],
  Bio: ['biopython'],
  cairo: ['pycairo'],
  wx: ['wxpython'],
  mpl_toolkits: ['matplotlib'],
  pylab: ['matplotlib'],
  talib: ['ta-lib'],
  _pytest: ['pytest'],
  psycopg2: ['psycopg2-binary'],
  'google.protobuf': ['protobuf'],
  sentry_sdk: ['sentry-sdk'],
  markdown: ['markdown'],
  lxml: ['lxml'],
  tomli_w: ['tomli-w'],
  mx: ['mxnet'],
  xdist: ['pytest-xdist'],
  ruamel: ['ruamel-yaml'],
  sklearn_crfsuite: ['sklearn-crfsuite'],
};

/** Packaging tools that are present wherever Python code is built or tested. */
export const PYTHON_TOOLING = new Set(['setuptools', 'pkg_resources', 'pip', 'wheel', 'pytest', '_pytest']);

/**
 * True when a declared distribution provides the module `dotted` (`google.cloud.storage`):
 * the exact PEP 503 name, a namespace family (`google-cloud-storage`, `opentelemetry-sdk` for
 * `opentelemetry`), the usual `python-x` / `pyx` / `x-binary` spellings, or a known alias.
 */
export function pythonModuleDeclared(dotted: string, deps: ReadonlySet<string>): boolean {
  const segments = dotted.split('.').filter(Boolean);
  const top = segments[0];
  if (!top) return false;
  const name = pep503(top);
  for (let i = segments.length; i >= 1; i--) if (deps.has(pep503(segments.slice(0, i).join('-')))) return true;
  const spellings = [`python-${name}`, `py${name}`, `py-${name}`, `${name}-python`, `${name}-py`, `${name}-binary`, `${name}-headless`];
  if (spellings.some((s) => deps.has(s))) return true;
  for (let i = segments.length; i >= 1; i--) {
    if ((PROVIDERS[segments.slice(0, i).join('.')] ?? []).some((d) => deps.has(d))) return true;
  }
  for (const d of deps) if (d.startsWith(`${name}-`)) return true;
  return false;
}

/**
 * True when the distribution `dist` (PEP 503 name) certainly provides the module `dotted`: the
 * module, or one of its dotted prefixes, normalised the same way is the distribution's name
 * (`typing_extensions` ← typing-extensions, `google.cloud.storage` ← google-cloud-storage), or the
 * table of well-known aliases says so (`yaml` ← PyYAML, `bs4` ← beautifulsoup4). Looser spellings
 * (`python-x`, a family prefix) ground an import but prove nothing about a removal, so they are not used.
 */
export function distributionProvides(dist: string, dotted: string): boolean {
  const segments = dotted.split('.').filter(Boolean);
  for (let i = 1; i <= segments.length; i++) {
    const prefix = segments.slice(0, i);
    if (pep503(prefix.join('-')) === dist) return true;
    if ((PROVIDERS[prefix.join('.')] ?? []).includes(dist)) return true;
  }
  return false;
}

/**
 * The top-level module names that may come from `dist` (for a first `git grep` before the imports
 * are parsed): its name with `-` read as `_` or `.` at each split, and the aliases of the table.
 */
export function topModuleCandidates(dist: string): string[] {
  const parts = dist.split('-');
  const out = new Set<string>();
  for (let i = 1; i <= parts.length; i++) out.add(parts.slice(0, i).join('_'));
  for (const [module, dists] of Object.entries(PROVIDERS)) if (dists.includes(dist)) out.add(module.split('.')[0]!);
  return [...out];
}
