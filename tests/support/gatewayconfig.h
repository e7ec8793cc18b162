#pragma once
// Reading exported gateway configs the way the gateway does, so that tests check the directives
// it will act on rather than text that may sit in a comment: NGINX's directives (comments gone,
// quotes respected) and HAProxy's configuration lines. And the verdict of a config checker that
// treats a failure without output as the failure it is.
#include <string>
#include <vector>

namespace qs::test {

// Every directive of an nginx.conf, in order, as "name arg arg" (block openers too:
// "server", "location ~ ^/x$"); "}" closes a block and is not listed.
std::vector<std::string> nginxDirectives(const std::string &conf);

// Every configuration line of a haproxy.cfg, trimmed, comments removed, empty lines dropped.
std::vector<std::string> haproxyLines(const std::string &cfg);

// "" when `status` is 0, else the checker's output or, when it printed nothing, the status.
std::string checkerVerdict(int status, const std::string &output);

} // namespace qs::test
