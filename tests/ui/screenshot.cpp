#include "screenshot.h"

#include <QDir>
#include <QImage>
#include <QPixmap>
#include <QSet>
#include <QWidget>

namespace qs::test {

namespace {

// A picture of a window has text, lines and fills: many colours. A blank or failed grab has one
// or two.
bool looksDrawn(const QImage &image)
{
    QSet<QRgb> colours;
    const int step = std::max(1, image.width() / 200);
    for (int y = 0; y < image.height() && colours.size() < 16; y += step)
        for (int x = 0; x < image.width() && colours.size() < 16; x += step)
            colours.insert(image.pixel(x, y));
    return colours.size() >= 16;
}

} // namespace

QString saveScreenshot(QWidget *widget, const QString &name)
{
    const QString dir = QStringLiteral(QS_SCREENSHOT_DIR);
    if (!QDir().mkpath(dir))
        return {};
    const QString path = dir + QLatin1Char('/') + name + QStringLiteral(".png");
    const QImage image = widget->grab().toImage();
    if (image.size() != widget->size() || !looksDrawn(image)) {
        qWarning("screenshot %s: %dx%d for a %dx%d widget, or blank", qPrintable(name),
            image.width(), image.height(), widget->width(), widget->height());
        return {};
    }
    return image.save(path) ? path : QString();
}

} // namespace qs::test
