'use strict';
// `npm pack` (prepack): copies libddbst into native/libddbst.so.0, so the
// package finds it without any setting. From, in this order:
//   $DDBST_LIBRARY_FILE (a libddbst.so file);
//   an installed ddbst that pkg-config finds (its libdir);
//   the ddbst source tree this directory sits in (../..), built with CMake
//   into its build/libddbst/ (Release, the library alone): the Python
//   package's build backend builds into the same directory, so packing both
//   from one tree builds the library once.
// An installed one's version must be the package's (a source tree's is). YAJL, libsodium and libcbor stay the
// system's shared libraries.

const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const here = path.join(__dirname, '..');
const root = path.join(here, '..', '..');
const version = require('../package.json').version;

function fromPkgConfig() {
  let libdir, found;
  try {
    libdir = execFileSync('pkg-config', ['--variable=libdir', 'ddbst'], { encoding: 'utf8' }).trim();
    found = execFileSync('pkg-config', ['--modversion', 'ddbst'], { encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
  const file = path.join(libdir, 'libddbst.so');
  if (!fs.existsSync(file)) return null;
  if (found !== version) {
    console.error(`bundle-library: the installed ddbst is ${found}, this package is ${version}`);
    process.exit(1);
  }
  return file;
}

function fromSource() {
  if (!fs.existsSync(path.join(root, 'CMakeLists.txt')) || !fs.existsSync(path.join(root, 'include', 'ddbst.h'))) {
    return null;
  }
  // shared with bindings/python/_build/ddbst_build.py
  const build = path.join(root, 'build', 'libddbst');
  const run = (args) => execFileSync('cmake', args, { stdio: ['ignore', 'ignore', 'inherit'] });
  run(['-S', root, '-B', build, '-DCMAKE_BUILD_TYPE=Release', '-DDDBST_TESTS=OFF', '-DDDBST_TOOLS=OFF']);
  run(['--build', build, '--target', 'ddbst', '-j2']);
  return path.join(build, 'libddbst.so');
}

const library = process.env.DDBST_LIBRARY_FILE || fromPkgConfig() || fromSource();
if (!library) {
  console.error('bundle-library: libddbst not found: install ddbst (pkg-config ddbst), pack from the ddbst ' +
                'source tree, or set DDBST_LIBRARY_FILE');
  process.exit(1);
}
fs.mkdirSync(path.join(here, 'native'), { recursive: true });
fs.copyFileSync(fs.realpathSync(library), path.join(here, 'native', 'libddbst.so.0'));
console.error(`bundle-library: native/libddbst.so.0 from ${library}`);
