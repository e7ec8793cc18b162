// Golden files: every example policy × every export target, compared byte for byte with
// tests/data/golden/<example>/<target>/ (the files plus diagnostics.txt with the warnings).
// A change to an exporter shows up as a reviewable diff of these files. Regenerate with
//   QS_UPDATE_GOLDEN=1 ctest -R GoldenExport
// The bundle's Lua scripts are left out: manifest.json pins each one by its SHA-1, and the
// scripts themselves are limiter/redis/lua/, tested for parity with the engine.
#include "model/export/exporter.h"
#include "model/policy/policyreader.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <gtest/gtest.h>

using namespace qs;

namespace {

struct Case {
    QString example; // file stem, e.g. "public-api"
    QString target;
    friend void PrintTo(const Case &c, std::ostream *os)
    {
        *os << c.example.toStdString() << " → " << c.target.toStdString();
    }
};

std::vector<Case> cases()
{
    std::vector<Case> out;
    const QDir examples(QStringLiteral(QS_EXAMPLES_DIR));
    for (const QFileInfo &f :
        examples.entryInfoList({QStringLiteral("*.yaml")}, QDir::Files, QDir::Name))
        for (const Exporter *e : exporters())
            out.push_back({f.completeBaseName(), e->id()});
    return out;
}

// What a golden directory holds for one export.
std::map<QString, QByteArray> expectedFiles(const Case &c)
{
    const PolicyReadResult read
        = readPolicyFile(QStringLiteral(QS_EXAMPLES_DIR "/") + c.example + QStringLiteral(".yaml"));
    const ExportResult result = exporterById(c.target)->exportPolicy(read.policy);
    std::map<QString, QByteArray> files;
    // Scripts and the middleware are copies of limiter/redis/lua and resources/redis-bundle, checked
    // against those in redisbundleexport_test.cpp.
    for (const ExportedFile &f : result.files)
        if (!f.name.endsWith(QLatin1String(".lua")) && !f.name.endsWith(QLatin1String(".py")))
            files[f.name] = f.content;
    QByteArray diagnostics;
    for (Diagnostic d : result.diagnostics) {
        d.file = c.example + QStringLiteral(".yaml"); // no absolute path in the golden file
        diagnostics += d.toString().toUtf8() + '\n';
    }
    files[QStringLiteral("diagnostics.txt")] = diagnostics;
    return files;
}

QString goldenDir(const Case &c)
{
    return QStringLiteral(QS_TEST_DATA_DIR "/golden/%1/%2").arg(c.example, c.target);
}

class GoldenExport : public testing::TestWithParam<Case> { };

} // namespace

TEST_P(GoldenExport, MatchesTheReviewedFiles)
{
    const Case c = GetParam();
    const std::map<QString, QByteArray> files = expectedFiles(c);
    QDir dir(goldenDir(c));
    if (qEnvironmentVariableIsSet("QS_UPDATE_GOLDEN")) {
        dir.removeRecursively();
        ASSERT_TRUE(QDir().mkpath(dir.path()));
        for (const auto &[name, content] : files) {
            QFile f(dir.filePath(name));
            ASSERT_TRUE(f.open(QIODevice::WriteOnly) && f.write(content) == content.size());
        }
        return;
    }
    ASSERT_TRUE(dir.exists()) << dir.path().toStdString()
                              << " is missing: QS_UPDATE_GOLDEN=1 writes it";
    QStringList onDisk = dir.entryList(QDir::Files, QDir::Name);
    QStringList produced;
    for (const auto &[name, content] : files)
        produced << name;
    EXPECT_EQ(onDisk, produced);
    for (const auto &[name, content] : files) {
        QFile f(dir.filePath(name));
        ASSERT_TRUE(f.open(QIODevice::ReadOnly)) << f.fileName().toStdString();
        EXPECT_EQ(f.readAll().toStdString(), content.toStdString())
            << c.example.toStdString() << " → " << c.target.toStdString() << ": "
            << name.toStdString() << " differs from the golden file";
    }
}

INSTANTIATE_TEST_SUITE_P(ExamplesTimesTargets, GoldenExport, testing::ValuesIn(cases()),
    [](const testing::TestParamInfo<Case> &info) {
        QString name = info.param.example + QLatin1Char('_') + info.param.target;
        return name.replace(QLatin1Char('-'), QLatin1Char('_')).toStdString();
    });
