// Reading line-oriented input files (OpenSM dumps, ibsim netfiles,
// ibnetdiscover output) without backtracking regular expressions: a bounded
// file reader, a line splitter with a length limit and a small scanner.
// Pure C++, no SystemC. The limits are listed in docs/reliability.md.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/config_error.hpp"

namespace ftsim {

/// Longest line accepted in a line-oriented input file, in bytes. OpenSM
/// node descriptions are at most 64 bytes, so real lines stay far below it.
inline constexpr std::size_t kMaxInputLineBytes = 4096;
/// Longest node or switch name accepted in a line-oriented input file, in
/// bytes: far above the 64 bytes of an InfiniBand node description, and
/// short enough that every line ftsim writes back (an LFT dump's entry pads
/// its numbers and spells the node type out) stays within kMaxInputLineBytes.
inline constexpr std::size_t kMaxInputNameBytes = 1024;
/// Largest line-oriented input file accepted (an OpenSM LFT dump of a fabric
/// of tens of thousands of LIDs stays below it).
inline constexpr std::size_t kMaxInputFileBytes = 256u << 20;

/// Bytes of memory available to this process (the kernel's MemAvailable),
/// 0 when unknown. Sizes checked against it before a large allocation.
std::uint64_t available_memory_bytes();

/// Reads a regular file whole. `what` names it in errors ("LFT dump").
/// Throws ConfigError when the path is missing, a directory, not a regular
/// file (a device, a pipe: /dev/zero would never end), larger than
/// `max_bytes`, or unreadable.
std::string read_text_file(const std::string& path, const std::string& what,
                           std::size_t max_bytes = kMaxInputFileBytes);

/// "the FIELD is N bytes long; at most 1024 allowed" when `name` is longer
/// than kMaxInputNameBytes, else "" (the parsers prefix SOURCE:LINE).
std::string name_length_error(std::string_view name, std::string_view field);

/// A token shortened for an error message: at most 40 characters, with the
/// total length when it was cut.
std::string shown(std::string_view token);

/// Throws ConfigError naming `field` when `value` holds a control character
/// (bytes 0x00-0x1f and 0x7f: a newline, a tab, an escape). Names and paths
/// that go into generated scripts, plots and CSV cells must be printable.
void check_no_control_characters(std::string_view value, const std::string& field);

/// Digits as an unsigned number in `base` (10 or 16) when every character is
/// a digit of that base, there is at least one, and the value is at most
/// `max`; otherwise nothing (leading zeros are fine: "0000032" is 32).
std::optional<std::uint64_t> parse_unsigned(std::string_view digits, int base, std::uint64_t max);

/// Splits text into lines ('\n'; a trailing '\r' is dropped), numbering them
/// from 1. Throws ConfigError "SOURCE:LINE: ..." for a line longer than
/// kMaxInputLineBytes.
class LineReader {
 public:
  LineReader(std::string_view text, std::string source) : m_text(text), m_source(std::move(source)) {}
  /// The next line, or false at the end of the text.
  bool next(std::string_view* line);
  int line_number() const { return m_line; }
  /// ConfigError "SOURCE:LINE: why" for the current line.
  ConfigError error(const std::string& why) const;

 private:
  std::string_view m_text;
  std::string m_source;
  std::size_t m_pos = 0;
  int m_line = 0;
};

/// A cursor over one line. Every method either consumes what it matched or
/// leaves the position unchanged.
class Scanner {
 public:
  explicit Scanner(std::string_view line) : m_line(line) {}
  /// Skips spaces, tabs and carriage returns.
  void skip_blanks();
  /// True (and consumed) when the text at the cursor starts with `s`.
  bool eat(std::string_view s);
  /// The longest run of decimal (or, with hex, hexadecimal) digits at the
  /// cursor, possibly empty.
  std::string_view digits(bool hex = false);
  /// Text up to the next `close` character, which is consumed too; nothing
  /// (and no move) when the line has no `close` after the cursor.
  std::optional<std::string_view> until(char close);
  /// Text from the cursor to the end of the line (consumed).
  std::string_view rest();
  /// True when only blanks remain.
  bool at_end();
  std::size_t position() const { return m_pos; }

 private:
  std::string_view m_line;
  std::size_t m_pos = 0;
};

}  // namespace ftsim
