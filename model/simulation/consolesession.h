#pragma once
// The test console's engine: the limiter's arithmetic for every limit of every route of a
// policy (limitset.h decides a request against all of a route's limits), and the answer a
// gateway would give to one request — the route that matched, the decision, the status and the
// response headers, the key's quota afterwards. No widgets, so tests drive it directly.
#include "limiter/algorithms/algorithm.h"
#include "limiter/algorithms/headers.h"
#include "model/policy/policy.h"
#include "model/policy/requestkey.h"
#include "model/policy/routeresolver.h"

#include <QList>
#include <QPair>
#include <QString>

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace qs {

struct ConsoleRequest {
    QString method = QStringLiteral("GET");
    QString target = QStringLiteral("/");
    QString client = QStringLiteral("203.0.113.7"); // the client address (`ip` key parts)
    std::int64_t cost = 0; // 0: the route's own cost
    QList<QPair<QString, QString>> headers; // `header:` key parts; `query:` come from target
    // The plan to decide on, as if the request had named it; unset: the request's own
    // (plans.from), or the default.
    std::optional<QString> plan;
};

// One limit's part in the answer (a route with several limits has one per limit).
struct ConsoleLimitResult {
    QString name;
    QString key; // the key this limit counted the request under
    QStringList missingKeyParts;
    bool counted = false; // false: the request lacked the key and this limit's missing_key
                          // passed it (allow) or refused it (deny)
    bool shadow = false; // a shadow limit: reported, never denies
    bool unlimited = false; // the request's plan is unlimited on this limit: not counted
    limiter::Decision decision; // this limit's own (before a give-back)
    std::optional<limiter::Quota> quotaAfter;
};

struct ConsoleResponse {
    std::optional<qsizetype> route; // unset: no route limits this request
    QString routeId;
    QString plan; // the plan the request was decided on; empty: the policy has no plans
    // The deciding limit's figures (the denying one, else the one nearest to denying); a
    // route's only limit is always the deciding one.
    QString key; // the engine key the request was counted under
    QStringList missingKeyParts; // key parts the request lacked; the route's missing_key applied
    MissingKeyMode missingKey = MissingKeyMode::Shared; // the route's choice
    bool counted = false; // the limit decided (false: denied or passed for a missing key)
    limiter::Decision decision;
    bool shadowed = false; // denied by a limit, passed because that limit is in shadow mode
    int status = 200;
    QList<QPair<QString, QString>> headers;
    std::optional<limiter::Quota> quotaAfter;
    QString problem; // the route's limit is invalid: nothing was decided
    QList<ConsoleLimitResult> limits; // every limit of the route, in the route's order
    QString decidingLimit; // the name of the limit whose figures are above
};

class ConsoleSession {
public:
    ConsoleSession();
    ~ConsoleSession();

    // Starts over with fresh states for every key.
    void setPolicy(const Policy &policy);
    ConsoleResponse send(const ConsoleRequest &request, limiter::Micros now);

private:
    // A limit of a route as the console runs it: its config (one per plan, by the index of
    // plans.names, when its numbers differ by plan; unset: unlimited on that plan) and its keys'
    // states (a planned limit's keys start with the plan: "pro:<client key>").
    struct LimitRun {
        std::vector<std::optional<limiter::AlgorithmConfig>> configs;
        bool byPlan = false;
        std::unordered_map<std::string, limiter::AlgorithmState> states;
    };
    struct RouteRun {
        std::vector<LimitRun> limits; // empty when one of the route's limits is invalid
        QString problem;
    };

    std::vector<limiter::Header> headersOf(const Route &route, const ConsoleResponse &out) const;
    static QString limitRun(
        const Policy &policy, const Route &route, const RouteLimit &limit, LimitRun &run);

    Policy m_policy;
    std::unique_ptr<RouteResolver> m_resolver;
    std::vector<RouteRun> m_routes;
};

} // namespace qs
