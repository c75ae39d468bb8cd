// The ftsim version and the git commit it was built from (stats.json
// "ftsim", `ftsim --version`).
#pragma once

namespace ftsim {
/// Semantic version of the project (CMake's project(VERSION)).
const char* version();
/// Short git commit of the source tree at build time, with "-modified" when
/// tracked files differed from it, or "unknown" outside a git checkout.
const char* git_commit();
}  // namespace ftsim
