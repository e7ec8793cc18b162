#include "tests/integration/monitor/monitorfixture.h"

#include <chrono>
#include <sstream>
#include <thread>

namespace qs::test {

Admin::Admin(int port, const char *user, const char *password)
{
    m_c = redisConnect("127.0.0.1", port);
    if (!m_c || m_c->err)
        ADD_FAILURE() << "cannot connect to redis on " << port;
    else if (password)
        run(user ? std::vector<std::string>{"AUTH", user, password}
                 : std::vector<std::string>{"AUTH", password});
}

Admin::~Admin()
{
    if (m_c)
        redisFree(m_c);
}

namespace {

std::string text(const redisReply *r)
{
    if (!r)
        return "ERR no reply";
    switch (r->type) {
    case REDIS_REPLY_INTEGER:
        return std::to_string(r->integer);
    case REDIS_REPLY_NIL:
        return "(nil)";
    case REDIS_REPLY_ARRAY: {
        std::string out;
        for (size_t i = 0; i < r->elements; ++i) {
            if (i)
                out += ' ';
            out += text(r->element[i]);
        }
        return out;
    }
    default:
        return std::string(r->str, r->len);
    }
}

} // namespace

std::string Admin::run(std::vector<std::string> argv)
{
    std::vector<const char *> parts;
    std::vector<size_t> lengths;
    for (const std::string &a : argv) {
        parts.push_back(a.data());
        lengths.push_back(a.size());
    }
    auto *r = static_cast<redisReply *>(
        redisCommandArgv(m_c, int(argv.size()), parts.data(), lengths.data()));
    std::string out = text(r);
    if (r)
        freeReplyObject(r);
    return out;
}

bool Admin::pipeline(const std::vector<std::vector<std::string>> &commands)
{
    for (const auto &argv : commands) {
        std::vector<const char *> parts;
        std::vector<size_t> lengths;
        for (const std::string &a : argv) {
            parts.push_back(a.data());
            lengths.push_back(a.size());
        }
        redisAppendCommandArgv(m_c, int(argv.size()), parts.data(), lengths.data());
    }
    bool ok = true;
    for (size_t i = 0; i < commands.size(); ++i) {
        void *reply = nullptr;
        if (redisGetReply(m_c, &reply) != REDIS_OK)
            return false;
        ok = ok && static_cast<redisReply *>(reply)->type != REDIS_REPLY_ERROR;
        freeReplyObject(reply);
    }
    return ok;
}

qint64 Admin::serverTimeUs()
{
    std::istringstream in(run({"TIME"}));
    qint64 s = 0, us = 0;
    in >> s >> us;
    return s * 1'000'000 + us;
}

void Admin::waitForRoomInWindow(qint64 windowUs, qint64 marginUs)
{
    const qint64 left = windowUs - serverTimeUs() % windowUs;
    if (left < marginUs)
        std::this_thread::sleep_for(std::chrono::microseconds(left + 100'000));
}

std::map<std::string, qint64> Admin::commandCalls()
{
    std::map<std::string, qint64> calls;
    std::istringstream in(run({"INFO", "commandstats"}));
    std::string line;
    // cmdstat_get:calls=12,usec=34,…
    while (std::getline(in, line)) {
        if (line.rfind("cmdstat_", 0) != 0)
            continue;
        const size_t colon = line.find(':');
        const size_t calls0 = line.find("calls=");
        if (colon == std::string::npos || calls0 == std::string::npos)
            continue;
        calls[line.substr(8, colon - 8)] = std::stoll(line.substr(calls0 + 6));
    }
    return calls;
}

std::string Admin::nextScanCursor(const std::string &cursor, int count)
{
    auto *r
        = static_cast<redisReply *>(redisCommand(m_c, "SCAN %s COUNT %d", cursor.c_str(), count));
    std::string next = r && r->type == REDIS_REPLY_ARRAY && r->elements == 2
        ? std::string(r->element[0]->str, r->element[0]->len)
        : std::string("0");
    freeReplyObject(r);
    return next;
}

} // namespace qs::test
