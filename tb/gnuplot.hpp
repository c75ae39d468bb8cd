// Runs gnuplot on a script without a shell: no user text is ever parsed by a
// shell, and paths inside the script are quoted for gnuplot itself.
#pragma once
#include <string>
#include <vector>

namespace ftsim::tb {

/// `text` as a gnuplot single-quoted string literal: a quote inside is
/// doubled ('it''s'), nothing else is special inside single quotes; control
/// characters (a newline would end the command) become spaces.
std::string gnuplot_quote(const std::string& text);

/// Runs `gnuplot` (found on PATH) with the script on its standard input,
/// through fork/execvp with an argument vector. gnuplot's standard error is
/// captured; on failure it is copied to `*error_text` (when given). Returns
/// true when gnuplot exited with status 0; *exit_status (when given)
/// receives its exit code (127: gnuplot could not be executed).
bool run_gnuplot(const std::string& script, std::string* error_text = nullptr, int* exit_status = nullptr);

/// Runs the script and checks that every PNG in `pngs` was written whole
/// (png_complete). Returns false, with gnuplot's message in *warning, when
/// gnuplot is not installed; throws ftsim::OutputError naming the file when
/// gnuplot failed or a PNG is missing or cut short.
bool draw_plots(const std::string& script, const std::vector<std::string>& pngs, std::string* warning);

}  // namespace ftsim::tb
