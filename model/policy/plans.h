#pragma once
// Plans: what a request's plan is, and what a limit's numbers are on that plan.
//
// A request's plan is found before any limit decides (request -> plan -> that plan's numbers),
// so the algorithms never learn about plans: a planned limit is one algorithm config per plan,
// and its state is kept per plan (the plan is part of the key: a client that changes plans starts
// afresh on the new plan's numbers). The map file (`from: { key: …, map: plans.map }`) is read
// with the policy and held as a PlanTable, whose lookup is what a decision pays for plans.
#include "limiter/engine/plantable.h"
#include "model/base/expected.h"
#include "model/policy/diagnostic.h"
#include "model/policy/policy.h"
#include "model/policy/requestkey.h"

#include <QByteArray>
#include <QList>
#include <QString>

#include <optional>

namespace qs {

// A plan map file: `value plan` per line, `#` comments and blank lines ignored. Values are
// printable ASCII without spaces (API keys, client ids): what every gateway's map file can hold
// without quoting.
struct PlanMapEntry {
    QString value;
    QString plan;
    int line = 0;
};

class PlanMap {
public:
    QString path; // the file as opened
    QList<PlanMapEntry> entries; // in file order; a value appears once
    limiter::PlanTable table; // value -> index into PlanSettings::names

    static constexpr qsizetype kMaxEntries = 1'000'000;
    static constexpr qint64 kMaxBytes = 64 * 1024 * 1024;
    static constexpr qsizetype kMaxValueLength = 4096;
};

struct PlanMapReadResult {
    std::shared_ptr<const PlanMap> map; // null when the file could not be read
    Diagnostics diagnostics; // at the map file's line:column
};

// `text` as the map file `path`, whose plans must be among `names`.
PlanMapReadResult readPlanMapText(
    const QByteArray &text, const QString &path, const QStringList &names);
PlanMapReadResult readPlanMapFile(const QString &path, const QStringList &names);
// Where a policy's `map:` is: relative to the policy file's folder unless absolute.
QString planMapPath(const QString &policyFile, const QString &mapFile);

// The policy's plans, with the map file read (when `from` names one); diagnostics for the file.
Diagnostics loadPlanMap(Policy &policy, const QString &policyFile);

// The limit's numbers on `plan`: its own fields, with what the plan sets in their place;
// nullopt when the plan is unlimited here.
std::optional<LimitSpec> specForPlan(const RouteLimit &limit, const QString &plan);

// Gives the limit new algorithm fields (another algorithm, say) and its plans numbers that
// follow: a plan's numbers, which were for the old algorithm, become the new algorithm's
// equivalent (switchAlgorithm), kept where they differ from the limit's own. Unlimited stays.
void setLimitSpec(RouteLimit &limit, LimitSpec spec);

// The fields a plan may set on this limit: its algorithm's numbers; never the algorithm, the
// calendar or the time zone (every plan's window starts at the same instants).
QStringList planFields(const LimitSpec &spec);

// A plan's entry of a limit as one line the workbench's plan table shows and takes:
// `capacity 100, refill 10/s`, `unlimited`; empty (or `inherit`): the limit's own numbers.
QString formatPlanCell(const PlanLimit &own);
// The entry the text stands for; nullopt when it asks for the limit's own numbers. The fields
// are the ones a plan may set for the limit's algorithm (as in a file), with the same bounds; an
// error says which part is wrong and what would do.
Expected<std::optional<PlanLimit>> parsePlanCell(
    const QString &text, const RouteLimit &limit, const QString &plan);

// Whether the route's numbers differ by plan in this policy: it declares plans and some limit of
// the route has numbers of its own for one (its keys then carry the plan).
bool routeVariesByPlan(const Policy &policy, const Route &route);

// The plan of a request: the attribute's value when it names a plan, the map's plan for the
// key's value, else the default. An index into policy.plans.names; -1 when the policy has none.
int requestPlan(const Policy &policy, const RequestFacts &request);

} // namespace qs
