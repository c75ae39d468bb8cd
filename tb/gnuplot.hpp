// Runs gnuplot on a script without a shell: no user text is ever parsed by a
// shell, and paths inside the script are quoted for gnuplot itself.
#pragma once
#include <string>

namespace ftsim::tb {

/// `text` as a gnuplot single-quoted string literal: a quote inside is
/// doubled ('it''s'), nothing else is special inside single quotes.
std::string gnuplot_quote(const std::string& text);

/// Runs `gnuplot` (found on PATH) with the script on its standard input,
/// through fork/execvp with an argument vector. gnuplot's standard error is
/// captured; on failure it is copied to `*error_text` (when given). Returns
/// true when gnuplot exited with status 0.
bool run_gnuplot(const std::string& script, std::string* error_text = nullptr);

}  // namespace ftsim::tb
