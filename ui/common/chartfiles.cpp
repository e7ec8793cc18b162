#include "ui/common/chartfiles.h"

#include <QChartView>
#include <QPainter>
#include <QSaveFile>
#include <QSvgGenerator>

namespace qs {

Expected<void> saveChartImage(QChartView *view, const QString &path)
{
    if (path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive)) {
        QSvgGenerator svg;
        svg.setFileName(path);
        svg.setSize(view->size());
        svg.setViewBox(view->rect());
        svg.setTitle(view->chart()->title());
        QPainter painter;
        if (!painter.begin(&svg))
            return QObject::tr("cannot write %1").arg(path);
        view->render(&painter);
        painter.end();
        return {};
    }
    if (!view->grab().save(path))
        return QObject::tr("cannot write %1").arg(path);
    return {};
}

QByteArray seriesCsv(const std::vector<Series> &series)
{
    QByteArray out = "t_s";
    std::size_t rows = 0;
    for (const Series &s : series) {
        const QByteArray name
            = QString(s.name).replace(QLatin1Char(','), QLatin1Char(' ')).toUtf8();
        out += ',' + name + " (" + s.unit.toUtf8() + ")," + name + " min," + name + " max";
        rows = std::max(rows, s.t.size());
    }
    out += '\n';
    for (std::size_t i = 0; i < rows; ++i) {
        out += series.empty() || i >= series.front().t.size()
            ? QByteArray()
            : QByteArray::number(series.front().t[i], 'f', 3);
        for (const Series &s : series) {
            if (i < s.value.size())
                out += ',' + QByteArray::number(s.value[i], 'g', 8) + ','
                    + QByteArray::number(s.min[i], 'g', 8) + ','
                    + QByteArray::number(s.max[i], 'g', 8);
            else
                out += ",,,";
        }
        out += '\n';
    }
    return out;
}

Expected<void> saveSeriesCsv(const std::vector<Series> &series, const QString &path)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return file.errorString();
    const QByteArray csv = seriesCsv(series);
    if (file.write(csv) != csv.size() || !file.commit())
        return file.errorString();
    return {};
}

} // namespace qs
