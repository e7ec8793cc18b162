#pragma once
// Kong: a declarative `kong.yml` (`_format_version: "3.0"`), one service per route (so that
// `limit_by: service` means "this route") with its route and a rate-limiting plugin. Kong
// counts in fixed windows aligned to the clock (second, minute, hour, day).
#include "model/export/exporter.h"

namespace qs {

class KongExporter final : public Exporter {
public:
    QString id() const override { return QStringLiteral("kong"); }
    QString displayName() const override { return QStringLiteral("Kong"); }
    bool writesSeveralLimits() const override { return true; }
    QStringList suggestedFileNames() const override { return {QStringLiteral("kong.yml")}; }

protected:
    ExportResult write(const Policy &policy) const override;
};

} // namespace qs
