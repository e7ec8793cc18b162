#pragma once
// The sequence every gateway export follows, written once (as Tiled's WritableMapFormat
// absorbs the boilerplate of its format plugins): prepare each route in the gateway's terms,
// stop at errors, put the routes in the gateway's order, then write each file of the file
// table — the same table that names the files (Exporter::suggestedFileNames). A gateway is
// one writer class with its syntax and nothing else; its exporter creates one per export.
#include "model/export/exporter.h"
#include "model/export/exportreport.h"

namespace qs {

class GatewayWriter {
public:
    GatewayWriter(const Policy &policy, const Exporter &exporter);
    virtual ~GatewayWriter() = default;
    GatewayWriter(const GatewayWriter &) = delete;
    GatewayWriter &operator=(const GatewayWriter &) = delete;

    ExportResult run();

protected:
    // One route in the gateway's terms; problems go to m_report (an error stops the export).
    virtual void prepare(qsizetype route) = 0;
    // The order the gateway needs (most specific first for first-match gateways).
    virtual void order() { }
    // The files to write, in order: the exporter's file table unless the policy decides
    // (the Redis bundle writes one script per algorithm it uses).
    virtual QStringList files() const { return m_exporter.suggestedFileNames(); }
    // One file's content; may add warnings (they are reported with the files).
    virtual QByteArray write(const QString &file) = 0;

    // The gateway counts requests, not cost: said once for every gateway.
    void noteCostNotExported(qsizetype route);
    void noteCostNotExported(qsizetype route, qsizetype limit);
    // Where a finding about limit `limit`'s key goes: its own `.limits[i].key`, or the route's
    // `.key` when it counts by the route's.
    QString keyField(qsizetype route, qsizetype limit) const;

    const Policy &m_policy;
    const Exporter &m_exporter;
    ExportReport m_report;
};

} // namespace qs
