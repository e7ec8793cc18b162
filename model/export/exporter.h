#pragma once
// One interface for every gateway target (as Tiled's file-format plugins share one): an
// exporter turns a policy into files plus diagnostics that say, per route, where the target
// cannot express the design exactly. Exporters register in exporterregistry.cpp.
#include "model/policy/diagnostic.h"
#include "model/policy/policy.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <vector>

namespace qs {

struct ExportedFile {
    QString name; // suggested file name, e.g. "nginx.conf"
    QByteArray content;
};

struct ExportResult {
    std::vector<ExportedFile> files;
    Diagnostics diagnostics; // warnings for approximations; errors for what cannot be exported
};

class Exporter {
public:
    virtual ~Exporter() = default;
    virtual QString id() const = 0; // "nginx"
    virtual QString displayName() const = 0; // "NGINX"
    virtual QStringList suggestedFileNames() const = 0;
    virtual ExportResult exportPolicy(const Policy &policy) const = 0;
};

const std::vector<const Exporter *> &exporters();
const Exporter *exporterById(const QString &id);

} // namespace qs
