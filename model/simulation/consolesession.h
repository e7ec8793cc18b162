#pragma once
// The test console's engine: one embedded limiter rule per route of a policy, and the answer a
// gateway would give to one request — the route that matched, the decision, the status and the
// response headers, the key's quota afterwards. No widgets, so tests drive it directly.
#include "limiter/engine/engine.h"
#include "model/policy/policy.h"
#include "model/policy/requestkey.h"
#include "model/policy/routeresolver.h"

#include <QList>
#include <QPair>
#include <QString>

#include <memory>
#include <optional>

namespace qs {

struct ConsoleRequest {
    QString method = QStringLiteral("GET");
    QString target = QStringLiteral("/");
    QString client = QStringLiteral("203.0.113.7"); // the client address (`ip` key parts)
    std::int64_t cost = 0; // 0: the route's own cost
    QList<QPair<QString, QString>> headers; // `header:` key parts; `query:` come from target
};

struct ConsoleResponse {
    std::optional<qsizetype> route; // unset: no route limits this request
    QString routeId;
    QString key; // the engine key the request was counted under
    QStringList missingKeyParts; // key parts the request lacked; the route's missing_key applied
    MissingKeyMode missingKey = MissingKeyMode::Shared; // the route's choice
    bool counted = false; // the limit decided (false: denied or passed for a missing key)
    limiter::Decision decision;
    bool shadowed = false; // denied by the limit, passed because the route is in shadow mode
    int status = 200;
    QList<QPair<QString, QString>> headers;
    std::optional<limiter::Quota> quotaAfter;
    QString problem; // the route's limit is invalid: nothing was decided
};

class ConsoleSession {
public:
    ConsoleSession();
    ~ConsoleSession();

    // Starts over with fresh states for every key.
    void setPolicy(const Policy &policy);
    ConsoleResponse send(const ConsoleRequest &request, limiter::Micros now);

private:
    Policy m_policy;
    std::unique_ptr<RouteResolver> m_resolver;
    std::unique_ptr<limiter::Engine> m_engine;
    QList<std::optional<limiter::RuleId>> m_rules; // per route; unset when its limit is invalid
    QStringList m_problems;
};

} // namespace qs
