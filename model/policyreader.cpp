#include "model/policyreader.h"

#include <QFile>

#include <yaml-cpp/yaml.h>

namespace qs {

namespace {

constexpr int kNewestFormat = 1;

Diagnostic errorAt(
    const QString &file, const YAML::Mark &mark, const QString &path, const QString &message)
{
    // yaml-cpp marks are 0-based; editors and compilers count from 1.
    return Diagnostic{
        Diagnostic::Severity::Error, file, mark.line + 1, mark.column + 1, path, message};
}

QString scalar(const YAML::Node &node)
{
    return QString::fromStdString(node.as<std::string>());
}

} // namespace

PolicyReadResult readPolicy(const QByteArray &text, const QString &fileName)
{
    PolicyReadResult result;
    YAML::Node root;
    try {
        root = YAML::Load(text.toStdString());
    } catch (const YAML::Exception &e) { // syntax errors, too deep nesting, bad escapes
        result.diagnostics.append(errorAt(fileName, e.mark, QString(),
            QString::fromStdString(e.msg) + QStringLiteral(": fix the YAML syntax here")));
        return result;
    }
    if (!root.IsMap()) {
        result.diagnostics.append(errorAt(fileName, root.Mark(), QString(),
            QStringLiteral("a policy is a mapping with at least "
                           "`quota_studio: 1` and `name:`")));
        return result;
    }
    if (const YAML::Node version = root["quota_studio"]; version && version.IsScalar()) {
        result.policy.formatVersion = version.as<int>(0);
        if (result.policy.formatVersion > kNewestFormat)
            result.diagnostics.append(
                errorAt(fileName, version.Mark(), QStringLiteral("quota_studio"),
                    QStringLiteral("this file is format %1; this Quota Studio reads up to %2: "
                                   "upgrade Quota Studio")
                        .arg(result.policy.formatVersion)
                        .arg(kNewestFormat)));
    }
    if (const YAML::Node name = root["name"]; name && name.IsScalar())
        result.policy.name = scalar(name);
    if (const YAML::Node description = root["description"]; description && description.IsScalar())
        result.policy.description = scalar(description);
    return result;
}

PolicyReadResult readPolicyFile(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        PolicyReadResult result;
        result.diagnostics.append(Diagnostic{Diagnostic::Severity::Error, path, 0, 0, QString(),
            QStringLiteral("cannot open: %1").arg(file.errorString())});
        return result;
    }
    return readPolicy(file.readAll(), path);
}

} // namespace qs
