internal import Foundation
internal import MemoraHub

/// The hub's dashboard, rendered on the server as plain HTML and CSS (no script): the latest memories
/// with their thumbnails and people, the people, each person's memories, a pairing QR code on request,
/// and (DashboardPage+Memories.swift) a page for each memory and every memory in pages.
/// Accessible by construction: landmarks (header, nav, main, footer), one `h1` and ordered headings,
/// a skip link, alt text from each memory's description (else its title), visible focus, link text
/// that says where it goes, and colours with at least 4.5:1 contrast.
enum DashboardPage {
    /// `text` escaped for HTML text and attribute values.
    static func escape(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }

    private static let style = """
        :root{color-scheme:light;font-family:system-ui,-apple-system,"DejaVu Sans",sans-serif;color:#1b1b1b;background:#fbfaf7}
        body{margin:0;line-height:1.5}
        .skip{position:absolute;left:-999px;top:0;background:#1b1b1b;color:#fff;padding:.5rem 1rem}
        .skip:focus{left:1rem}
        header,main,footer{max-width:72rem;margin:0 auto;padding:1rem 1.5rem}
        header{display:flex;flex-wrap:wrap;align-items:baseline;justify-content:space-between;border-bottom:2px solid #d6d1c4}
        h1{margin:0;font-size:1.8rem}
        nav ul{list-style:none;margin:0;padding:0;display:flex;gap:1.25rem}
        a{color:#0b4f8a;text-decoration:underline;text-underline-offset:.15em}
        a:focus-visible{outline:3px solid #b35c00;outline-offset:2px}
        .grid{list-style:none;padding:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(15rem,1fr));gap:1.25rem}
        .memory{background:#fff;border:1px solid #d6d1c4;border-radius:.5rem;overflow:hidden;height:100%}
        .memory img{display:block;width:100%;height:11rem;object-fit:cover;background:#e9e5da}
        .memory .note{height:11rem;margin:0;padding:1rem;overflow:hidden;background:#f1ede2;font-size:.95rem}
        .memory h3{margin:.6rem .9rem .2rem;font-size:1.05rem}
        .memory p{margin:.2rem .9rem .8rem;font-size:.9rem;color:#444}
        .people{padding-left:1.2rem;line-height:2.4}
        .avatar{width:2rem;height:2rem;border-radius:50%;object-fit:cover;vertical-align:middle}
        .pair{display:flex;flex-wrap:wrap;gap:1.5rem;align-items:flex-start}
        .pair svg{width:15rem;height:15rem;border:1px solid #d6d1c4}
        button{font:inherit;padding:.5rem 1rem;border:2px solid #0b4f8a;border-radius:.4rem;background:#fff;color:#0b4f8a;cursor:pointer}
        button:focus-visible{outline:3px solid #b35c00;outline-offset:2px}
        .pair code{display:block;max-width:40rem;word-break:break-all;background:#f1ede2;padding:.5rem;font-size:.8rem}
        .full{display:block;max-width:100%;height:auto;background:#e9e5da}
        video{display:block;max-width:100%;height:auto;background:#1b1b1b}
        audio{display:block;width:100%;max-width:40rem;margin:1rem 0}
        .text{max-width:40rem;background:#fff;border:1px solid #d6d1c4;border-radius:.5rem;padding:.5rem 1.25rem;font-size:1.05rem}
        .details{display:grid;grid-template-columns:max-content 1fr;gap:.4rem 1.25rem;max-width:48rem}
        .details dt{font-weight:600}
        .details dd{margin:0}
        .filters{display:flex;flex-wrap:wrap;gap:.25rem 1.25rem;align-items:flex-end}
        .filters p{margin:.25rem 0}
        .filters label{display:block;font-weight:600}
        input,select{font:inherit;padding:.4rem;border:2px solid #6b6b6b;border-radius:.3rem;background:#fff;color:#1b1b1b}
        input:focus-visible,select:focus-visible,audio:focus-visible,video:focus-visible{outline:3px solid #b35c00;outline-offset:2px}
        .pages{list-style:none;padding:0;display:flex;gap:1.5rem}
        .edit label{display:block;font-weight:600}
        .edit input,.edit textarea{width:100%;max-width:40rem;box-sizing:border-box}
        textarea{font:inherit;padding:.4rem;border:2px solid #6b6b6b;border-radius:.3rem;background:#fff;color:#1b1b1b}
        textarea:focus-visible{outline:3px solid #b35c00;outline-offset:2px}
        .source{color:#444;font-style:italic}
        .changes li{margin:.4rem 0}
        .inline{display:inline}
        .inline button{padding:.1rem .6rem;margin-left:.5rem}
        .danger{border-color:#a00000;color:#a00000}
        .problem{border-left:5px solid #a00000;padding:.25rem 1rem;margin:1rem 0;background:#fff}
        .problem a{color:#a00000}
        .field-error{display:block;color:#a00000;font-weight:600}
        [aria-invalid=true]{border-color:#a00000}
        footer{color:#555;font-size:.85rem;border-top:1px solid #d6d1c4}
        """

    /// The page a browser gets when the dashboard refuses what it asked (the API's clients get the JSON
    /// error body): what went wrong, each field's problem, and the way back to `back`.
    static func failure(_ error: ServerError, back: String) -> String {
        let message = capitalised(error.message)
        let items: [String] = error.fields.map { "<li>\(escape(capitalised($0.field))): \(escape($0.message))</li>" }
        let problems = items.isEmpty ? "" : "<ul>" + items.joined() + "</ul>"
        return page(title: "Error: \(message): Memory Palace", body: """
            <section class="problem" role="alert" aria-labelledby="problem-title"><h2 id="problem-title">\(escape(message))</h2>\(problems)
            <p><a href="\(escape(back))" id="back-link">Go back</a></p></section>
            """)
    }

    /// Where a refused dashboard request's page leads back to: the memory's or person's page a form of
    /// it was sent from, else every memory, else the latest memories.
    static func back(from path: String) -> String {
        let parts = path.split(separator: "/")
        if parts.count >= 3, parts[0] == "memories" || parts[0] == "people", Int64(parts[1]) != nil { return "/\(parts[0])/\(parts[1])" }
        return parts.first == "memories" ? "/memories" : "/"
    }

    /// `text` with its first letter a capital.
    static func capitalised(_ text: String) -> String { text.prefix(1).uppercased() + text.dropFirst() }

    /// A whole page around `body`.
    static func page(title: String, body: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escape(title))</title><style>\(style)</style></head>
        <body><a class="skip" href="#main">Skip to the content</a>
        <header><h1>Memory Palace</h1><nav aria-label="Sections"><ul><li><a href="/">Latest memories</a></li>
        <li><a href="/memories">All memories</a></li><li><a href="/#people">People</a></li><li><a href="/#pair">Add a device</a></li></ul></nav></header>
        <main id="main" tabindex="-1">\(body)</main>
        <footer><p>memora-server \(escape(SyncServer.version)): the family's memories stay on this hub.</p>
        <form method="post" action="/dashboard/logout"><button type="submit" id="logout-button">Sign out of this browser</button></form></footer>
        </body></html>
        """
    }

    /// One memory as a card: its thumbnail (alt text from its description, else its title) or its text.
    static func card(_ memory: HubMemory, people: [Int64: HubPerson]) -> String {
        let when = memory.takenAt.map { date(Double($0) / 1000) } ?? "date unknown"
        var media: String
        if memory.thumbnailUrl != nil {
            let alt = memory.description.flatMap { $0.isEmpty ? nil : $0 } ?? memory.title
            media = "<img src=\"/dashboard/thumbnails/\(memory.id)\" alt=\"\(escape(alt))\" width=\"512\" height=\"352\" loading=\"lazy\">"
        } else {
            let text = memory.kind == .text ? (memory.description ?? "") : "A \(memory.kind == .voice ? "voice recording" : memory.kind.rawValue) memory."
            media = "<p class=\"note\">\(escape(String(text.prefix(280))))</p>"
        }
        let names = memory.people.compactMap { people[$0] }.map { "<a href=\"/people/\($0.id)\">\(escape($0.name))</a>" }
        return """
            <li><article class="memory" aria-labelledby="memory-\(memory.id)">\(media)
            <h3 id="memory-\(memory.id)"><a href="/memories/\(memory.id)">\(escape(memory.title))</a></h3>
            <p>\(escape(memory.kind.rawValue.capitalized))\(memory.durationMs.map { ", " + duration($0) } ?? ""), \(escape(when))</p>
            <p>\(names.isEmpty ? "No one tagged" : "With " + names.joined(separator: ", "))</p></article></li>
            """
    }

    /// A duration as people read it: 0:42, 12:05, 1:02:03.
    static func duration(_ milliseconds: Int64) -> String {
        let seconds = Int((Double(milliseconds) / 1000).rounded())
        return seconds >= 3600 ? String(format: "%d:%02d:%02d", seconds / 3600, seconds / 60 % 60, seconds % 60) : String(format: "%d:%02d", seconds / 60, seconds % 60)
    }

    static func date(_ seconds: Double) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_GB")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateStyle = .long
        return formatter.string(from: Date(timeIntervalSince1970: seconds))
    }

    /// The home page. Its "Add a device" section has a button that asks for a pairing code: a code is
    /// made only when a person asks (a page view makes none).
    static func home(memories: [HubMemory], people: [HubPerson]) -> String {
        let byID = Dictionary(uniqueKeysWithValues: people.map { ($0.id, $0) })
        let cards = memories.map { card($0, people: byID) }.joined(separator: "\n")
        let list = people.map { person in
            // The avatar is decorative: the name beside it says who it is.
            let avatar = person.avatarUrl == nil ? "" : "<img class=\"avatar\" src=\"/dashboard/avatars/\(person.id)\" alt=\"\" width=\"32\" height=\"32\"> "
            return "<li>\(avatar)<a href=\"/people/\(person.id)\">\(escape(person.name))</a>\(person.relationship.map { " (" + escape($0) + ")" } ?? ""): "
                + "\(person.memoryCount) \(person.memoryCount == 1 ? "memory" : "memories")</li>"
        }.joined(separator: "\n")
        return page(title: "Memory Palace", body: """
            <section aria-labelledby="latest"><h2 id="latest">Latest memories</h2>
            \(memories.isEmpty ? "<p>No memories yet. Add a device below, then share the first one.</p>" : "<ul class=\"grid\">\(cards)</ul>")
            <p><a href="/memories">All memories, with search</a></p></section>
            <section id="people" aria-labelledby="people-title"><h2 id="people-title">People</h2>
            \(people.isEmpty ? "<p>No people yet: a device adds them (memora hub people add NAME).</p>" : "<ul class=\"people\">\(list)</ul>")</section>
            <section id="pair" aria-labelledby="pair-title"><h2 id="pair-title">Add a device</h2>
            <p>A pairing code lets one device join this hub: it works once, for ten minutes. Make one when the device is at hand.</p>
            <form method="post" action="/dashboard/pair"><button type="submit" id="pair-button">Show a pairing code</button></form></section>
            """)
    }

    /// The page after signing out: no link into the dashboard (it needs the key again).
    static func signedOut() -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Signed out: Memory Palace</title><style>\(style)</style></head>
        <body><header><h1>Memory Palace</h1></header>
        <main id="main"><p>This browser is signed out. To come back, open the address that <code>memora-server dashboard</code> prints on the hub.</p></main>
        </body></html>
        """
    }

    /// The page with a new pairing code: its QR code and its text for `memora hub pair`.
    static func pairing(_ pairing: PairingCode, json: String, qr: QRCode?) -> String {
        let expires = pairing.expiresAt.map { "It works once, until \(time(Double($0) / 1000)) UTC." } ?? ""
        return page(title: "Pair a device: Memory Palace", body: """
            <section aria-labelledby="pair-title"><h2 id="pair-title">Pair a device</h2>
            <div class="pair">\(qr?.svg(title: "QR code to pair a device with this hub") ?? "")
            <div><p>Scan this code with the Memory Palace collector. \(escape(expires))</p>
            <p>Devices reach the hub at \(escape(pairing.serverIP)), port \(pairing.port).</p>
            <p>On a computer: <code>memora hub pair '\(escape(json))'</code></p>
            <p><a href="/">Back to the latest memories</a></p></div></div></section>
            """)
    }

    /// A person's page.
    static func person(_ person: HubPerson, memories: [HubMemory], people: [HubPerson]) -> String {
        let byID = Dictionary(uniqueKeysWithValues: people.map { ($0.id, $0) })
        let cards = memories.map { card($0, people: byID) }.joined(separator: "\n")
        return page(title: "\(person.name): Memory Palace", body: """
            <section aria-labelledby="person-title"><h2 id="person-title">\(escape(person.name))\(person.relationship.map { ", " + escape($0) } ?? "")</h2>
            <p>\(memories.count) \(memories.count == 1 ? "memory" : "memories"). <a href="/memories?person=\(person.id)">Find among \(escape(person.name))'s memories</a>. <a href="/">Back to the latest memories</a></p>
            \(memories.isEmpty ? "" : "<ul class=\"grid\">\(cards)</ul>")</section>
            """)
    }

    static func time(_ seconds: Double) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_GB")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "HH:mm"
        return formatter.string(from: Date(timeIntervalSince1970: seconds))
    }
}
