#pragma once
// The result of a step that can fail: its value, or why it failed, in words for the user.
// C++23's std::expected in the small, as qBittorrent's nonstd::expected<T, QString> and
// Qt Creator's expected_str: every parser and factory in the model returns one, so that a caller
// never meets an "empty string means success" or a `QString *error` out-parameter.
//
//   Expected<Rate> r = parseRate(text);
//   if (!r)
//       return r.error();   // already says what is wrong and how to write it
//   use(*r);
#include <QString>

#include <cassert>
#include <optional>
#include <type_traits>
#include <utility>
#include <variant>

namespace qs {

// Says "this is the error" where the value and the error type could be confused, and makes a
// failure that reads as one at the return: `return Unexpected(tr("…"))`.
template <class E>
struct Unexpected {
    E error;
    explicit Unexpected(E e) : error(std::move(e)) { }
};

template <class T, class E = QString>
class [[nodiscard]] Expected {
public:
    using value_type = T;
    using error_type = E;

    // Implicit both ways, so that `return value;` and `return tr("…");` read naturally. When
    // the value and the error have one type, a plain one is the value: say Unexpected(…).
    template <class U>
    static constexpr bool kConverts = std::is_constructible_v<T, U &&>;
    template <class U>
    static constexpr bool kIsExpected = std::is_same_v<std::decay_t<U>, Expected>;
    template <class U>
    static constexpr bool kIsError = !std::is_same_v<T, E> && std::is_same_v<std::decay_t<U>, E>;

    template <class U = T,
        std::enable_if_t<kConverts<U> && !kIsExpected<U> && !kIsError<U>, int> = 0>
    Expected(U &&value) : m_v(std::in_place_index<0>, std::forward<U>(value))
    {
    }
    Expected(E error) requires(!std::is_same_v<T, E>)
        : m_v(std::in_place_index<1>, std::move(error))
    {
    }
    template <class G>
    Expected(Unexpected<G> failure) : m_v(std::in_place_index<1>, std::move(failure.error))
    {
    }

    bool hasValue() const { return m_v.index() == 0; }
    explicit operator bool() const { return hasValue(); }

    T &value() &
    {
        assert(hasValue());
        return *std::get_if<0>(&m_v);
    }
    const T &value() const &
    {
        assert(hasValue());
        return *std::get_if<0>(&m_v);
    }
    T &&value() &&
    {
        assert(hasValue());
        return std::move(*std::get_if<0>(&m_v));
    }
    T &operator*() & { return value(); }
    const T &operator*() const & { return value(); }
    T &&operator*() && { return std::move(*this).value(); }
    T *operator->() { return &value(); }
    const T *operator->() const { return &value(); }

    const E &error() const
    {
        assert(!hasValue());
        return *std::get_if<1>(&m_v);
    }

    // The value, or `fallback` when there is none: for callers that have a safe default.
    template <class U>
    T valueOr(U &&fallback) const &
    {
        return hasValue() ? value() : T(std::forward<U>(fallback));
    }

private:
    std::variant<T, E> m_v;
};

// A step with nothing to give back but success: `return {};` or `return tr("…");`.
template <class E>
class [[nodiscard]] Expected<void, E> {
public:
    using error_type = E;

    Expected() = default;
    Expected(E error) : m_error(std::move(error)) { }
    template <class G>
    Expected(Unexpected<G> failure) : m_error(std::move(failure.error))
    {
    }

    bool hasValue() const { return !m_error.has_value(); }
    explicit operator bool() const { return hasValue(); }
    const E &error() const
    {
        assert(!hasValue());
        return *m_error;
    }

private:
    std::optional<E> m_error;
};

} // namespace qs
