#include "model/probe/probereport.h"

#include <QJsonArray>
#include <QTextStream>

#include <algorithm>
#include <cmath>

namespace qs {

namespace {

double percentile(std::vector<double> values, double p)
{
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    const auto at = std::size_t(std::ceil(p * double(values.size()))) - (p > 0 ? 1 : 0);
    return values[std::min(at, values.size() - 1)];
}

QJsonValue toJson(const std::optional<Divergence> &d)
{
    if (!d)
        return QJsonValue::Null;
    QJsonObject o{
        {QStringLiteral("request"), d->request},
        {QStringLiteral("time_s"), double(d->offset) / 1e6},
        {QStringLiteral("predicted"),
            d->predictedAllowed ? QStringLiteral("admit") : QStringLiteral("deny")},
        {QStringLiteral("observed"),
            d->observedAllowed ? QStringLiteral("admit") : QStringLiteral("deny")},
        {QStringLiteral("status"), d->status},
        {QStringLiteral("explained"), d->explained},
        {QStringLiteral("headers"), d->headers},
        {QStringLiteral("explanation"), d->explanation},
    };
    if (!d->limit.isEmpty())
        o[QStringLiteral("limit")] = d->limit;
    return o;
}

QString percent(double share)
{
    return QStringLiteral("%1%").arg(share * 100, 0, 'f', share >= 0.9995 || share == 0 ? 0 : 2);
}

QString describe(const Divergence &d)
{
    const QString about
        = d.limit.isEmpty() ? QString() : QStringLiteral(", limit '%1'").arg(d.limit);
    return QStringLiteral("request %1 at %2 s: predicted %3, observed %4 (status %5)%6\n    %7%8")
        .arg(d.request)
        .arg(double(d.offset) / 1e6, 0, 'f', 3)
        .arg(d.predictedAllowed ? QStringLiteral("admit") : QStringLiteral("deny"),
            d.observedAllowed ? QStringLiteral("admit") : QStringLiteral("deny"))
        .arg(d.status)
        .arg(about, d.explanation,
            d.headers.isEmpty() ? QStringLiteral("\n    (no rate-limit headers on that response)")
                                : QStringLiteral("\n    headers: ")
                    + QString(d.headers).replace(QLatin1Char('\n'), QStringLiteral("; ")));
}

} // namespace

ProbeReport summarize(const ProbeComparator &comparator, const ProbePlan &plan,
    const QString &traffic, const RetryCheck &retry)
{
    ProbeReport r;
    r.routeId = plan.routeId;
    r.method = plan.method;
    r.url = plan.url.toString();
    r.traffic = traffic;
    r.planned = qint64(plan.requests.size());
    r.warnings = plan.warnings;
    r.compared = comparator.requests();
    r.requests = qint64(r.compared.size());
    std::vector<double> latencies;
    for (const ComparedRequest &c : r.compared) {
        if (c.verdict == Verdict::NoResponse) {
            ++r.noResponse;
            continue;
        }
        ++r.responses;
        latencies.push_back(double(c.sample.elapsed) / 1000.0);
        r.observedAllowed += c.observedAllowed;
        r.predictedAllowed += c.predictedAllowed;
        switch (c.verdict) {
        case Verdict::Agree:
            ++r.agreed;
            r.withinTiming += c.withinTiming;
            r.reordered += c.reordered;
            break;
        case Verdict::Explained:
            ++r.explained;
            break;
        case Verdict::Unexplained:
            ++r.unexplained;
            break;
        case Verdict::NoResponse:
            break;
        }
    }
    if (r.responses > 0) {
        r.agreement = double(r.agreed) / double(r.responses);
        r.explainedShare = double(r.explained) / double(r.responses);
        r.unexplainedShare = double(r.unexplained) / double(r.responses);
    }
    r.firstDivergence = comparator.firstDivergence();
    r.firstUnexplained = comparator.firstUnexplained();
    r.headerIssues = comparator.headerIssues();
    r.retryCheck = retry;
    if (retry.performed && !retry.admitted)
        r.headerIssues.push_back({QStringLiteral("retry_after_dishonest"), 1,
            QStringLiteral("after request %1's Retry-After of %2 s, the retry got status %3")
                .arg(retry.request)
                .arg(retry.waitedS)
                .arg(retry.status)});
    for (const QString &name : comparator.limitNames())
        r.limits.push_back({name, 0, 0});
    for (const ComparedRequest &c :
        r.limits.empty() ? std::vector<ComparedRequest>{} : r.compared) {
        if (c.verdict == Verdict::NoResponse)
            continue;
        for (ProbeLimitFigures &l : r.limits) {
            l.predictedDenials += !c.predicted.allowed && c.limit == l.name;
            l.divergences += c.verdict != Verdict::Agree && c.divergentLimit == l.name;
        }
        r.deniedThoughEveryLimitAdmits += c.verdict != Verdict::Agree && c.divergentLimit.isEmpty();
    }
    for (const QString &name : plan.plans.names)
        r.plans.push_back({name, 0, 0, 0, 0, 0});
    for (const ComparedRequest &c : r.plans.empty() ? std::vector<ComparedRequest>{} : r.compared)
        for (ProbePlanFigures &p : r.plans)
            if (c.verdict != Verdict::NoResponse && c.plan == p.name) {
                ++p.responses;
                p.agreed += c.verdict == Verdict::Agree;
                p.observedAllowed += c.observedAllowed;
                p.predictedAllowed += c.predictedAllowed;
            }
    for (ProbePlanFigures &p : r.plans)
        p.agreement = p.responses > 0 ? double(p.agreed) / double(p.responses) : 0;
    r.p50Ms = percentile(latencies, 0.5);
    r.p99Ms = percentile(latencies, 0.99);
    if (comparator.gateway())
        r.gatewayModel = comparator.gateway()->description;
    return r;
}

bool withinTolerance(const ProbeReport &report, double tolerance)
{
    return report.responses > 0 && report.unexplainedShare <= tolerance + 1e-12;
}

QJsonObject toJson(const ProbeReport &r)
{
    QJsonArray issues;
    for (const HeaderIssue &i : r.headerIssues)
        issues.append(QJsonObject{{QStringLiteral("kind"), i.kind},
            {QStringLiteral("count"), i.count}, {QStringLiteral("example"), i.example}});
    QJsonObject retry{{QStringLiteral("performed"), r.retryCheck.performed}};
    if (r.retryCheck.performed) {
        retry[QStringLiteral("after_request")] = r.retryCheck.request;
        retry[QStringLiteral("waited_s")] = r.retryCheck.waitedS;
        retry[QStringLiteral("status")] = r.retryCheck.status;
        retry[QStringLiteral("admitted")] = r.retryCheck.admitted;
    }
    QJsonObject o{
        {QStringLiteral("route"), r.routeId},
        {QStringLiteral("method"), r.method},
        {QStringLiteral("url"), r.url},
        {QStringLiteral("traffic"), r.traffic},
        {QStringLiteral("requests"), r.requests},
        {QStringLiteral("responses"), r.responses},
        {QStringLiteral("no_response"), r.noResponse},
        {QStringLiteral("observed_admitted"), r.observedAllowed},
        {QStringLiteral("predicted_admitted"), r.predictedAllowed},
        {QStringLiteral("agreement"), r.agreement},
        {QStringLiteral("agreed_within_timing"), r.withinTiming},
        {QStringLiteral("agreed_reordered"), r.reordered},
        {QStringLiteral("explained_divergence"), r.explainedShare},
        {QStringLiteral("unexplained_divergence"), r.unexplainedShare},
        {QStringLiteral("first_divergence"), toJson(r.firstDivergence)},
        {QStringLiteral("first_unexplained_divergence"), toJson(r.firstUnexplained)},
        {QStringLiteral("header_issues"), issues},
        {QStringLiteral("retry_check"), retry},
        {QStringLiteral("p50_ms"), r.p50Ms},
        {QStringLiteral("p99_ms"), r.p99Ms},
        {QStringLiteral("gateway_model"), r.gatewayModel},
        {QStringLiteral("warnings"), QJsonArray::fromStringList(r.warnings)},
        {QStringLiteral("cancelled"), r.cancelled},
        {QStringLiteral("unreachable"), r.unreachable},
    };
    if (!r.limits.empty()) {
        QJsonObject limits;
        for (const ProbeLimitFigures &l : r.limits)
            limits[l.name] = QJsonObject{{QStringLiteral("predicted_denials"), l.predictedDenials},
                {QStringLiteral("divergences"), l.divergences}};
        o[QStringLiteral("limits")] = limits;
        o[QStringLiteral("denied_though_every_limit_admits")] = r.deniedThoughEveryLimitAdmits;
    }
    if (!r.plans.empty()) {
        QJsonObject plans;
        for (const ProbePlanFigures &p : r.plans)
            plans[p.name] = QJsonObject{{QStringLiteral("responses"), p.responses},
                {QStringLiteral("observed_admitted"), p.observedAllowed},
                {QStringLiteral("predicted_admitted"), p.predictedAllowed},
                {QStringLiteral("agreement"), p.agreement}};
        o[QStringLiteral("plans")] = plans;
    }
    return o;
}

QByteArray toCsv(const ProbeReport &r)
{
    QString out;
    QTextStream s(&out);
    s << "request,time_s,client,status,observed,predicted,gateway_predicted,verdict,"
         "within_timing,reordered,latency_ms,retry_after_s,remaining,plan\n";
    auto word = [](bool allowed) { return allowed ? "admit" : "deny"; };
    for (const ComparedRequest &c : r.compared) {
        const bool answered = c.verdict != Verdict::NoResponse;
        s << c.sample.number << ',' << QString::number(double(c.sample.offset) / 1e6, 'f', 6) << ','
          << c.sample.client << ',' << c.sample.status << ','
          << (answered ? word(c.observedAllowed) : "") << ','
          << (answered ? word(c.predictedAllowed) : "") << ','
          << (answered && c.gatewayPredicted ? word(*c.gatewayPredicted) : "") << ','
          << verdictName(c.verdict) << ',' << (c.withinTiming ? 1 : 0) << ','
          << (c.reordered ? 1 : 0) << ','
          << (c.sample.elapsed >= 0 ? QString::number(double(c.sample.elapsed) / 1000.0, 'f', 3)
                                    : QString())
          << ','
          << (c.sample.headers.retryAfterS ? QString::number(*c.sample.headers.retryAfterS)
                                           : QString())
          << ','
          << (c.sample.headers.remaining ? QString::number(*c.sample.headers.remaining) : QString())
          << ',' << c.plan << '\n';
    }
    s.flush();
    return out.toUtf8();
}

QString toText(const ProbeReport &r)
{
    QString out;
    QTextStream s(&out);
    s << "probe of route " << r.routeId << ": " << r.method << ' ' << r.url << ", traffic "
      << r.traffic << '\n';
    for (const QString &w : r.warnings)
        s << "warning: " << w << '\n';
    if (!r.unreachable.isEmpty()) {
        s << "the gateway could not be reached: " << r.unreachable << '\n';
        return out;
    }
    if (r.cancelled)
        s << "cancelled after " << r.requests << " of " << r.planned << " requests\n";
    s << "\nrequests     " << r.requests << " (" << r.responses << " answered, " << r.noResponse
      << " without a response)\n";
    s << "admitted     " << r.observedAllowed << " observed, " << r.predictedAllowed
      << " predicted by the design\n";
    s << "agreement    " << percent(r.agreement) << " (" << r.agreed << " requests; "
      << r.withinTiming << " of them within the request's timing";
    if (r.reordered > 0)
        s << ", " << r.reordered << " in a pair the gateway served in the other order";
    s << ")\n";
    s << "explained    " << percent(r.explainedShare) << " (" << r.explained << ")";
    if (!r.gatewayModel.isEmpty())
        s << " by the export's approximation: " << r.gatewayModel;
    s << "\nunexplained  " << percent(r.unexplainedShare) << " (" << r.unexplained << ")\n";
    s << "latency      p50 " << QString::number(r.p50Ms, 'f', 2) << " ms, p99 "
      << QString::number(r.p99Ms, 'f', 2) << " ms\n";
    if (!r.limits.empty()) {
        s << "\nper limit    predicted denials  divergences\n";
        for (const ProbeLimitFigures &l : r.limits)
            s << "  " << l.name.leftJustified(10) << ' '
              << QString::number(l.predictedDenials).rightJustified(17) << "  "
              << QString::number(l.divergences).rightJustified(11) << '\n';
        s << "  denied though every limit admits: " << r.deniedThoughEveryLimitAdmits << '\n';
    }
    if (!r.plans.empty()) {
        s << "\nper plan     responses  admitted (observed / predicted)  agreement\n";
        for (const ProbePlanFigures &p : r.plans)
            s << "  " << p.name.leftJustified(10) << ' '
              << QString::number(p.responses).rightJustified(9) << "  "
              << QStringLiteral("%1 / %2")
                     .arg(p.observedAllowed)
                     .arg(p.predictedAllowed)
                     .rightJustified(31)
              << "  " << (p.responses > 0 ? percent(p.agreement) : QStringLiteral("-")) << '\n';
    }
    if (r.firstDivergence)
        s << "\nfirst divergence: " << describe(*r.firstDivergence) << '\n';
    if (r.firstUnexplained && r.firstUnexplained->request != r.firstDivergence->request)
        s << "first unexplained divergence: " << describe(*r.firstUnexplained) << '\n';
    s << "\nheaders:";
    if (r.headerIssues.empty())
        s << " no issue found";
    s << '\n';
    for (const HeaderIssue &i : r.headerIssues)
        s << "  " << i.kind << " x" << i.count << " (first: " << i.example << ")\n";
    if (r.retryCheck.performed)
        s << "  retry check: waited " << r.retryCheck.waitedS << " s after request "
          << r.retryCheck.request << "'s Retry-After, then "
          << (r.retryCheck.admitted ? "admitted" : "denied") << " (status " << r.retryCheck.status
          << ")\n";
    s.flush();
    return out;
}

AdmissionSeries admissionSeries(
    const std::vector<ComparedRequest> &compared, limiter::Micros bucket)
{
    AdmissionSeries series;
    if (compared.empty() || bucket <= 0)
        return series;
    const std::size_t buckets = std::size_t(compared.back().sample.offset / bucket) + 1;
    series.observed.assign(buckets, 0);
    series.predicted.assign(buckets, 0);
    series.divergent.assign(buckets, 0);
    const double perSecond = double(limiter::kMicrosPerSecond) / double(bucket);
    for (const ComparedRequest &c : compared) {
        if (c.verdict == Verdict::NoResponse)
            continue;
        const std::size_t b = std::min(buckets - 1, std::size_t(c.sample.offset / bucket));
        series.observed[b] += c.observedAllowed * perSecond;
        series.predicted[b] += c.predictedAllowed * perSecond;
        series.divergent[b] += (c.verdict != Verdict::Agree) * perSecond;
    }
    for (std::size_t b = 0; b < buckets; ++b)
        series.t.push_back(double(b) * double(bucket) / 1e6);
    return series;
}

} // namespace qs
