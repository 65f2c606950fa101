// The README and docs/ link to each other and to files of the repository: every relative link
// must lead to a file that exists and, with a #fragment, to a heading of that file (GitHub's
// anchor rule: lower case, punctuation dropped, spaces as '-').
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string anchor_of(const std::string& heading) {
  std::string slug;
  for (const unsigned char c : heading) {
    if (std::isalnum(c) || c == '-' || c == '_') {
      slug += static_cast<char>(std::tolower(c));
    } else if (c == ' ') {
      slug += '-';
    } else if (c >= 0x80) {
      slug += static_cast<char>(c);  // GitHub keeps non-ASCII letters
    }
  }
  return slug;
}

// Lines outside ``` fences.
std::vector<std::string> prose_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  bool fenced = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("```", 0) == 0 || line.rfind("  ```", 0) == 0) {
      fenced = !fenced;
      continue;
    }
    if (!fenced) lines.push_back(line);
  }
  return lines;
}

std::set<std::string> anchors(const fs::path& markdown) {
  std::set<std::string> out;
  for (const std::string& line : prose_lines(read_file(markdown))) {
    const size_t hashes = line.find_first_not_of('#');
    if (hashes == 0 || hashes == std::string::npos || line[hashes] != ' ') continue;
    out.insert(anchor_of(line.substr(hashes + 1)));
  }
  return out;
}

std::vector<fs::path> documents(const fs::path& root) {
  std::vector<fs::path> out{root / "README.md"};
  for (const auto& entry : fs::directory_iterator(root / "docs")) {
    if (entry.path().extension() == ".md") out.push_back(entry.path());
  }
  return out;
}

}  // namespace

TEST_CASE("every relative link of the README and docs/ leads to a file and a heading", "[docs]") {
  const fs::path root = OUTBOX_SOURCE_DIR;
  const std::regex link(R"(\]\(([^)\s]+)\))");
  int checked = 0;
  for (const fs::path& document : documents(root)) {
    for (const std::string& line : prose_lines(read_file(document))) {
      // Inline code is not a link.
      std::string text = std::regex_replace(line, std::regex("`[^`]*`"), "");
      for (std::sregex_iterator it(text.begin(), text.end(), link), end; it != end; ++it) {
        const std::string target = (*it)[1];
        if (target.rfind("http://", 0) == 0 || target.rfind("https://", 0) == 0 ||
            target.rfind("mailto:", 0) == 0) {
          continue;
        }
        const size_t hash = target.find('#');
        const std::string file_part = target.substr(0, hash);
        const fs::path file = file_part.empty() ? document : document.parent_path() / file_part;
        INFO(document.string() << ": " << target);
        REQUIRE(fs::exists(file));
        if (hash != std::string::npos) {
          CHECK(anchors(file).count(target.substr(hash + 1)) == 1);
        }
        ++checked;
      }
    }
  }
  CHECK(checked >= 15);  // the check found the links it is about
}

TEST_CASE("the README stays short and names every document of docs/", "[docs]") {
  const fs::path root = OUTBOX_SOURCE_DIR;
  const std::string readme = read_file(root / "README.md");
  CHECK(std::count(readme.begin(), readme.end(), '\n') < 400);
  for (const fs::path& document : documents(root)) {
    if (document.filename() == "README.md") continue;
    INFO(document.string());
    CHECK(readme.find("](docs/" + document.filename().string() + ")") != std::string::npos);
  }
}
