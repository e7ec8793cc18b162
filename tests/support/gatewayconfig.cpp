#include "tests/support/gatewayconfig.h"

#include <cctype>

namespace qs::test {

namespace {

std::string trimmed(const std::string &s)
{
    const auto b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos)
        return {};
    return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

// Collapses runs of whitespace (outside quotes) to one space.
std::string normalised(const std::string &s)
{
    std::string out;
    char quote = 0;
    for (char c : trimmed(s)) {
        if (quote) {
            out += c;
            if (c == quote)
                quote = 0;
        } else if (c == '"' || c == '\'') {
            quote = c;
            out += c;
        } else if (std::isspace(static_cast<unsigned char>(c))) {
            if (!out.empty() && out.back() != ' ')
                out += ' ';
        } else {
            out += c;
        }
    }
    return out;
}

} // namespace

std::vector<std::string> nginxDirectives(const std::string &conf)
{
    std::vector<std::string> out;
    std::string current;
    char quote = 0;
    bool comment = false, escaped = false;
    for (char c : conf) {
        if (comment) {
            comment = c != '\n';
            continue;
        }
        if (quote) {
            current += c;
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == quote)
                quote = 0;
            continue;
        }
        if (c == '#') {
            comment = true;
        } else if (c == '"' || c == '\'') {
            quote = c;
            current += c;
        } else if (c == ';' || c == '{' || c == '}') {
            if (const std::string d = normalised(current); !d.empty())
                out.push_back(d);
            current.clear();
        } else {
            current += c;
        }
    }
    return out;
}

std::vector<std::string> haproxyLines(const std::string &cfg)
{
    std::vector<std::string> out;
    std::string line;
    auto flush = [&] {
        std::string code;
        char quote = 0;
        for (char c : line) {
            if (!quote && c == '#')
                break;
            if (quote && c == quote)
                quote = 0;
            else if (!quote && (c == '"' || c == '\''))
                quote = c;
            code += c;
        }
        if (const std::string d = normalised(code); !d.empty())
            out.push_back(d);
        line.clear();
    };
    for (char c : cfg) {
        if (c == '\n')
            flush();
        else
            line += c;
    }
    flush();
    return out;
}

std::string checkerVerdict(int status, const std::string &output)
{
    if (status == 0)
        return {};
    return output.empty() ? "failed with exit status " + std::to_string(status) + " and no output"
                          : output;
}

} // namespace qs::test
