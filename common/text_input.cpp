#include "common/text_input.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace ftsim {

namespace fs = std::filesystem;

std::string read_text_file(const std::string& path, const std::string& what, std::size_t max_bytes) {
  std::error_code ec;
  const auto st = fs::status(path, ec);
  if (ec && ec != std::errc::no_such_file_or_directory)
    throw ConfigError(fmt::format("{} '{}': {}", what, path, ec.message()));
  if (!fs::exists(st)) throw ConfigError(fmt::format("{} '{}' does not exist", what, path));
  if (fs::is_directory(st)) throw ConfigError(fmt::format("{} '{}' is a directory, not a file", what, path));
  if (!fs::is_regular_file(st))
    throw ConfigError(fmt::format("{} '{}' is not a regular file (a device or a pipe?)", what, path));
  const auto size = fs::file_size(path, ec);
  if (ec) throw ConfigError(fmt::format("cannot read {} '{}': {}", what, path, ec.message()));
  if (size > max_bytes)
    throw ConfigError(
        fmt::format("{} '{}' is {} bytes; at most {} ({} MiB) allowed", what, path, size, max_bytes, max_bytes >> 20));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(fmt::format("cannot read {} '{}': {}", what, path, std::strerror(errno)));
  std::string text(static_cast<std::size_t>(size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  // A file that grew while it was read (a log still being written) is
  // refused rather than read for ever.
  if (in && in.peek() != std::char_traits<char>::eof())
    throw ConfigError(fmt::format("{} '{}' grew while it was read; give a finished file", what, path));
  return text;
}

std::uint64_t available_memory_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key, unit;
  std::uint64_t kb = 0;
  while (in >> key >> kb >> unit)
    if (key == "MemAvailable:") return kb * 1024;
  return 0;
}

std::string shown(std::string_view token) {
  constexpr std::size_t kShown = 40;
  if (token.size() <= kShown) return std::string(token);
  return fmt::format("{}... ({} characters)", token.substr(0, kShown), token.size());
}

void check_no_control_characters(std::string_view value, const std::string& field) {
  for (std::size_t i = 0; i < value.size(); ++i) {
    const auto c = static_cast<unsigned char>(value[i]);
    if (c < 0x20 || c == 0x7f)
      throw ConfigError(
          fmt::format("{}: '{}' holds a control character (byte 0x{:02x} at position {}); names and paths "
                      "must be printable text",
                      field, shown(value.substr(0, i)), c, i + 1));
  }
}

std::optional<std::uint64_t> parse_unsigned(std::string_view digits, int base, std::uint64_t max) {
  if (digits.empty()) return std::nullopt;
  std::uint64_t v = 0;
  for (const char c : digits) {
    int d = -1;
    if (c >= '0' && c <= '9') d = c - '0';
    if (base == 16 && c >= 'a' && c <= 'f') d = c - 'a' + 10;
    if (base == 16 && c >= 'A' && c <= 'F') d = c - 'A' + 10;
    if (d < 0 || d >= base) return std::nullopt;
    const auto b = static_cast<std::uint64_t>(base);
    const auto digit = static_cast<std::uint64_t>(d);
    if (digit > max || v > (max - digit) / b) return std::nullopt;  // v * base + d > max
    v = v * b + digit;
  }
  return v;
}

std::string name_length_error(std::string_view name, std::string_view field) {
  if (name.size() <= kMaxInputNameBytes) return "";
  return fmt::format("the {} is {} bytes long; at most {} allowed", field, name.size(), kMaxInputNameBytes);
}

bool LineReader::next(std::string_view* line) {
  if (m_pos >= m_text.size()) return false;
  ++m_line;
  std::size_t end = m_text.find('\n', m_pos);
  if (end == std::string_view::npos) end = m_text.size();
  std::string_view l = m_text.substr(m_pos, end - m_pos);
  m_pos = end + 1;
  if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
  if (l.size() > kMaxInputLineBytes)
    throw error(fmt::format("the line is {} bytes long; at most {} allowed", l.size(), kMaxInputLineBytes));
  *line = l;
  return true;
}

ConfigError LineReader::error(const std::string& why) const {
  return ConfigError(fmt::format("{}:{}: {}", m_source, m_line, why));
}

void Scanner::skip_blanks() {
  while (m_pos < m_line.size() && (m_line[m_pos] == ' ' || m_line[m_pos] == '\t' || m_line[m_pos] == '\r')) ++m_pos;
}

bool Scanner::eat(std::string_view s) {
  if (m_line.substr(m_pos, s.size()) != s) return false;
  m_pos += s.size();
  return true;
}

std::string_view Scanner::digits(bool hex) {
  const std::size_t start = m_pos;
  while (m_pos < m_line.size()) {
    const char c = m_line[m_pos];
    const bool digit = (c >= '0' && c <= '9') || (hex && ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')));
    if (!digit) break;
    ++m_pos;
  }
  return m_line.substr(start, m_pos - start);
}

std::optional<std::string_view> Scanner::until(char close) {
  const std::size_t end = m_line.find(close, m_pos);
  if (end == std::string_view::npos) return std::nullopt;
  const std::string_view text = m_line.substr(m_pos, end - m_pos);
  m_pos = end + 1;
  return text;
}

std::string_view Scanner::rest() {
  const std::string_view r = m_line.substr(m_pos);
  m_pos = m_line.size();
  return r;
}

bool Scanner::at_end() {
  skip_blanks();
  return m_pos >= m_line.size();
}

}  // namespace ftsim
