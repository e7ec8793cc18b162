#include "ui/common/icons.h"

#include <QApplication>
#include <QHash>
#include <QPainter>
#include <QPalette>
#include <QSvgRenderer>

static void initQuotaStudioResources()
{
    Q_INIT_RESOURCE(quota_studio);
}

namespace qs {

void initResources()
{
    initQuotaStudioResources();
}

namespace {

bool keepsItsColours(const QString &name)
{
    static const QStringList coloured{QStringLiteral("run"), QStringLiteral("cancel"),
        QStringLiteral("error"), QStringLiteral("warning"), QStringLiteral("ok"),
        QStringLiteral("quota-studio")};
    return coloured.contains(name);
}

QPixmap render(QSvgRenderer &svg, int size, const QColor *tint)
{
    QPixmap pixmap(size, size);
    pixmap.fill(Qt::transparent);
    QPainter p(&pixmap);
    p.setRenderHint(QPainter::Antialiasing);
    svg.render(&p);
    if (tint) {
        p.setCompositionMode(QPainter::CompositionMode_SourceIn);
        p.fillRect(pixmap.rect(), *tint);
    }
    return pixmap;
}

} // namespace

QIcon icon(const QString &name)
{
    // Cached per palette text colour: a theme change gets freshly tinted icons.
    static QHash<QString, QIcon> cache;
    const QPalette palette = QApplication::palette();
    const QColor text = palette.color(QPalette::Active, QPalette::WindowText);
    const QString key = name + text.name();
    if (const auto it = cache.constFind(key); it != cache.constEnd())
        return *it;
    QSvgRenderer svg(QStringLiteral(":/icons/%1.svg").arg(name));
    if (!svg.isValid())
        return {};
    QIcon result;
    const bool tinted = !keepsItsColours(name);
    const QColor disabled = palette.color(QPalette::Disabled, QPalette::WindowText);
    for (const int size : {16, 20, 24, 32, 48}) {
        result.addPixmap(render(svg, size, tinted ? &text : nullptr), QIcon::Normal);
        if (tinted)
            result.addPixmap(render(svg, size, &disabled), QIcon::Disabled);
    }
    cache.insert(key, result);
    return result;
}

} // namespace qs
