internal import Foundation
internal import MemoraHub
internal import MemoraHTTP

/// The dashboard's memory pages: one memory with its player, and every memory in pages with filters and search.
extension DashboardPage {
    /// What a page of memories shows: the filters and search (as the form has them) and where the page starts.
    struct Listing: Sendable, Equatable {
        var search: String?
        var person: Int64?
        var kind: MemoryKind?
        var year: Int?
        var after: HubStore.MemoryCursor?

        /// The link to this listing (the page from `after`), with only the filters that are set.
        var link: String {
            var items: [(String, String)] = []
            if let search, !search.isEmpty { items.append(("q", search)) }
            if let person { items.append(("person", String(person))) }
            if let kind { items.append(("kind", kind.rawValue)) }
            if let year { items.append(("year", String(year))) }
            if let after { items.append(("before", after.text)) }
            guard !items.isEmpty else { return "/memories" }
            var allowed = CharacterSet.alphanumerics
            allowed.insert(charactersIn: "-._~")
            return "/memories?" + items.map { "\($0)=\($1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&")
        }

        /// Whether any filter or search is set.
        var isFiltered: Bool { (search.map { !$0.isEmpty } ?? false) || person != nil || kind != nil || year != nil }
    }

    /// The words a kind is offered under in the filter.
    private static let kindNames: [(MemoryKind, String)] = [(.photo, "Photos"), (.video, "Videos"), (.voice, "Voice recordings"), (.text, "Texts")]

    /// A page of memories, newest first, with the form that filters and searches them and the link to the next page.
    static func memories(_ memories: [HubMemory], listing: Listing, next: HubStore.MemoryCursor?, people: [HubPerson], years: [Int]) -> String {
        let byID = Dictionary(uniqueKeysWithValues: people.map { ($0.id, $0) })
        let cards = memories.map { card($0, people: byID) }.joined(separator: "\n")
        func option(_ value: String, _ label: String, selected: Bool) -> String {
            "<option value=\"\(escape(value))\"\(selected ? " selected" : "")>\(escape(label))</option>"
        }
        let personOptions = [option("", "Everyone", selected: listing.person == nil)]
            + people.map { option(String($0.id), $0.name, selected: listing.person == $0.id) }
        let kindOptions = [option("", "Every kind", selected: listing.kind == nil)] + kindNames.map { option($0.0.rawValue, $0.1, selected: listing.kind == $0.0) }
        let yearOptions = [option("", "Every year", selected: listing.year == nil)] + years.map { option(String($0), String($0), selected: listing.year == $0) }
        var first = listing
        first.after = nil
        var pages: [String] = []
        if listing.after != nil { pages.append("<li><a href=\"\(escape(first.link))\">Newest memories</a></li>") }
        if let next {
            var older = listing
            older.after = next
            pages.append("<li><a href=\"\(escape(older.link))\" rel=\"next\">Older memories</a></li>")
        }
        let summary: String
        if memories.isEmpty {
            summary = listing.isFiltered ? "No memories match." : "No memories yet."
        } else {
            let count = "\(memories.count) \(memories.count == 1 ? "memory" : "memories")"
            summary = listing.after == nil ? "\(count)\(listing.isFiltered ? (memories.count == 1 ? " that matches" : " that match") : ""), newest first."
                : "\(count) more, older than the previous page."
        }
        return page(title: "Memories: Memory Palace", body: """
            <section aria-labelledby="memories-title"><h2 id="memories-title">Memories</h2>
            <form method="get" action="/memories" role="search" aria-label="Find memories" class="filters">
            <p><label for="q">Words in the title or text</label> <input type="search" id="q" name="q" maxlength="200" value="\(escape(listing.search ?? ""))"></p>
            <p><label for="person">Person</label> <select id="person" name="person">\(personOptions.joined())</select></p>
            <p><label for="kind">Kind</label> <select id="kind" name="kind">\(kindOptions.joined())</select></p>
            <p><label for="year">Year</label> <select id="year" name="year">\(yearOptions.joined())</select></p>
            <p><button type="submit" id="find-button">Show memories</button></p>
            </form>
            <p role="status" id="summary">\(escape(summary))</p>
            \(memories.isEmpty ? "" : "<ul class=\"grid\">\(cards)</ul>")
            \(pages.isEmpty ? "" : "<nav aria-label=\"Pages\"><ul class=\"pages\">\(pages.joined())</ul></nav>")</section>
            """)
    }

    /// Where a memory's media is served to the dashboard (whole or in part).
    static func mediaLink(_ memory: HubMemory) -> String { "/dashboard/media/\(memory.id)" }

    /// The photo types a browser shows (the others are shown by their JPEG thumbnail).
    private static let browserImages: Set<String> = ["image/jpeg", "image/png", "image/webp", "image/avif", "image/gif"]

    /// A size as people read it: 820 KB, 14.2 MB, 1.1 GB.
    static func size(_ bytes: Int64) -> String {
        let value = Double(bytes)
        if value >= 1e9 { return String(format: "%.1f GB", value / 1e9) }
        if value >= 1e6 { return String(format: "%.1f MB", value / 1e6) }
        return String(format: "%.0f KB", max(1, (value / 1e3).rounded()))
    }

    /// One memory's page: the photo at full size (alt text: its description), a voice recording or a
    /// video in the browser's own player (keyboard-usable), or the whole text; then who is in it, when
    /// and where it was made, and which device added it; the form that corrects its title and
    /// description, the changes made (each with a button that undoes it), and the way to delete it.
    /// - Parameters:
    ///   - device: the platform of the device that added it, when the hub knows the device.
    ///   - hasSound: whether a video has a sound track (nil: unknown).
    ///   - source: who wrote the description: labelled as written automatically until a person edits it.
    ///   - extendedSource: who wrote the extended description (a person never does: it is not edited here).
    ///   - edits: the recorded changes, newest first.
    ///   - correction: a correction that was refused: the form shows it as typed, with each field's problem.
    static func memory(_ memory: HubMemory, people: [HubPerson], device: String?, hasSound: Bool?, source: HubStore.DescriptionSource = .automatic,
                       extendedSource: HubStore.DescriptionSource = .automatic, edits: [HubStore.MemoryEdit] = [], correction: Correction? = nil) -> String {
        let byID = Dictionary(uniqueKeysWithValues: people.map { ($0.id, $0) })
        let description = memory.description.flatMap { $0.isEmpty ? nil : $0 }
        let length = memory.durationMs.map { duration($0) }
        var media = "", kind = ""
        // A photo's or video's size in pixels, so the page does not move as it loads.
        let dimensions = memory.width.flatMap { width in memory.height.map { " width=\"\(width)\" height=\"\($0)\"" } } ?? ""
        switch memory.kind {
        case .photo:
            kind = "Photo"
            let alt = description ?? memory.title
            let shown = browserImages.contains(memory.mediaType.lowercased()) ? mediaLink(memory) : memory.thumbnailUrl == nil ? nil : "/dashboard/thumbnails/\(memory.id)"
            media = shown.map { "<img class=\"full\" src=\"\(escape($0))\" alt=\"\(escape(alt))\"\(shown == mediaLink(memory) ? dimensions : "")>" }
                ?? "<p>This photo's format cannot be shown in a browser: download it below.</p>"
        case .video:
            let sound = hasSound.map { $0 ? ", with sound" : ", without sound" } ?? ""
            kind = "Video" + (length.map { ", \($0) long" } ?? "") + sound
            let poster = memory.thumbnailUrl == nil ? "" : " poster=\"/dashboard/thumbnails/\(memory.id)\""
            media = """
                <video id="player" controls preload="metadata"\(poster)\(dimensions) src="\(mediaLink(memory))" aria-labelledby="memory-title">
                <a href="\(mediaLink(memory))">Download the video</a></video>
                """
        case .voice:
            kind = "Voice recording" + (length.map { ", \($0) long" } ?? "")
            media = """
                <audio id="player" controls preload="metadata" src="\(mediaLink(memory))" aria-labelledby="memory-title">
                <a href="\(mediaLink(memory))">Download the recording</a></audio>
                """
        case .text:
            kind = "Text"
            let paragraphs = (description ?? "").split(separator: "\n", omittingEmptySubsequences: true)
            media = "<div class=\"text\">" + paragraphs.map { "<p>\(escape(String($0)))</p>" }.joined() + "</div>"
        }
        var details: [(String, String)] = [("Kind", escape(kind))]
        if memory.kind != .text, let description {
            details.append(("Description", "\(escape(description)) <span class=\"source\">(\(source.label))</span>"))
        }
        if let extended = memory.extendedDescription, !extended.isEmpty {
            let lines = extended.split(separator: "\n", omittingEmptySubsequences: true).map { escape(String($0)) }
            details.append(("More", lines.joined(separator: "<br>") + " <span class=\"source\">(\(extendedSource.label))</span>"))
        }
        let names = memory.people.compactMap { byID[$0] }.map { "<a href=\"/people/\($0.id)\">\(escape($0.name))</a>" }
        details.append(("With", names.isEmpty ? "No one tagged" : names.joined(separator: ", ")))
        details.append(("When", escape(memory.takenAt.map { date(Double($0) / 1000) } ?? "Not recorded")))
        let location: String
        if let place = memory.place, !place.isEmpty {
            location = escape(place)
        } else if let latitude = memory.latitude, let longitude = memory.longitude {
            location = escape(String(format: "%.5f, %.5f", latitude, longitude))
        } else {
            location = "Not recorded"
        }
        details.append(("Where", location))
        let shortID = String(memory.uploadedBy.prefix(8))
        details.append(("Added", escape("On \(date(Double(memory.createdAt) / 1000)), by \(device.map { "a device on \($0)" } ?? "a device") (\(shortID))")))
        if memory.kind != .text {
            details.append(("Original", "<a href=\"\(mediaLink(memory))\" download>Download the original</a> (\(escape(size(memory.size))), \(escape(memory.mediaType)))"))
        }
        let list = details.map { "<dt>\($0.0)</dt><dd>\($0.1)</dd>" }.joined(separator: "\n")
        let textLabel = memory.kind == .text ? "Text" : "Description"
        let limit = MemoryDetails.descriptionLimit(for: memory.kind)
        // A refused correction: said first (and in the page's title, which a screen reader reads on
        // arrival), each problem linked to its field, and the fields as they were typed.
        var summary = ""
        var fieldError: [String: String] = [:]
        if let correction {
            let labels = ["title": "Title", "description": textLabel]
            let items: String = correction.problems.map { (problem: FieldProblem) -> String in
                let label = labels[problem.field] ?? capitalised(problem.field)
                fieldError[problem.field] = "<span class=\"field-error\" id=\"\(problem.field)-error\">\(escape(label)): \(escape(problem.message))</span>"
                return "<li><a href=\"#\(labels[problem.field] == nil ? "correct-title" : problem.field)\">\(escape(label)): \(escape(problem.message))</a></li>"
            }.joined()
            summary = "<div class=\"problem\" role=\"alert\" aria-labelledby=\"problem-title\"><h4 id=\"problem-title\">The correction was not saved</h4><ul>\(items)</ul></div>"
        }
        func invalid(_ field: String) -> String { fieldError[field] == nil ? "" : " aria-invalid=\"true\" aria-describedby=\"\(field)-error\"" }
        let typedTitle = correction?.title ?? memory.title
        let typedDescription = correction?.description ?? description ?? ""
        return page(title: "\(correction == nil ? "" : "Error: ")\(memory.title): Memory Palace", body: """
            <article aria-labelledby="memory-title"><h2 id="memory-title">\(escape(memory.title))</h2>
            <div class="media">\(media)</div>
            <section aria-labelledby="about-title"><h3 id="about-title">About this memory</h3>
            <dl class="details">\(list)</dl></section>
            <section aria-labelledby="correct-title"><h3 id="correct-title">Correct this memory</h3>
            <p>A correction changes what the hub says about the memory, never the file itself. Each one is listed below and can be undone.</p>
            \(summary)<form method="post" action="/memories/\(memory.id)/edit" class="edit">
            <p><label for="title">Title</label> \(fieldError["title"] ?? "")<input id="title" name="title" required maxlength="200" value="\(escape(typedTitle))"\(invalid("title"))></p>
            <p><label for="description">\(textLabel)</label> \(fieldError["description"] ?? "")<textarea id="description" name="description" rows="\(memory.kind == .text ? 10 : 4)" maxlength="\(limit)"\(invalid("description"))>\(escape(typedDescription))</textarea></p>
            <p><button type="submit" id="save-button">Save the correction</button></p></form></section>
            \(changes(edits, memory: memory))
            <section aria-labelledby="delete-title"><h3 id="delete-title">Delete</h3>
            <p><a href="/memories/\(memory.id)/delete" id="delete-link">Delete this memory</a> (you are asked to confirm)</p></section>
            <p><a href="/memories">All memories</a></p></article>
            """)
    }

    /// A correction of a memory's page that was refused, as the person typed it.
    struct Correction: Sendable {
        /// The title as typed.
        var title: String
        /// The description (a text memory's text) as typed.
        var description: String
        /// What is wrong with each field (`title`, `description`).
        var problems: [FieldProblem]
    }

    /// The list of a memory's changes, each with the button that undoes it while it stands.
    static func changes(_ edits: [HubStore.MemoryEdit], memory: HubMemory) -> String {
        guard !edits.isEmpty else {
            return "<section aria-labelledby=\"changes-title\"><h3 id=\"changes-title\">Changes</h3><p>No corrections yet.</p></section>"
        }
        func quoted(_ value: String?) -> String {
            guard let value, !value.isEmpty else { return "nothing" }
            return "“" + escape(value.count > 160 ? String(value.prefix(160)) + "…" : value) + "”"
        }
        let items = edits.map { edit in
            let what = edit.field == .title ? "Title" : memory.kind == .text ? "Text" : "Description"
            let when = "\(date(Double(edit.editedAt) / 1000)), \(time(Double(edit.editedAt) / 1000)) UTC"
            var item = "<li>\(what) changed from \(quoted(edit.oldValue)) to \(quoted(edit.newValue)) on \(escape(when)) by \(escape(edit.editedBy))."
            if let undone = edit.undoneAt {
                item += " Undone on \(escape(date(Double(undone) / 1000))).</li>"
            } else {
                item += """
                     <form method="post" action="/memories/\(memory.id)/undo" class="inline"><input type="hidden" name="edit" value="\(edit.id)">\
                    <button type="submit" aria-label="Undo this change of the \(what.lowercased())">Undo</button></form></li>
                    """
            }
            return item
        }.joined(separator: "\n")
        return "<section aria-labelledby=\"changes-title\"><h3 id=\"changes-title\">Changes</h3><ul class=\"changes\">\(items)</ul></section>"
    }

    /// The page that asks before a memory is deleted.
    static func confirmDeletion(_ memory: HubMemory) -> String {
        page(title: "Delete \(memory.title)? Memory Palace", body: """
            <section aria-labelledby="delete-title"><h2 id="delete-title">Delete “\(escape(memory.title))”?</h2>
            <p>The memory goes from the hub for every device of the family, with its \(memory.kind == .text ? "text" : "file"), its people and its faces. This cannot be undone.</p>
            <form method="post" action="/memories/\(memory.id)/delete"><p><button type="submit" id="confirm-delete" class="danger">Delete this memory</button></p></form>
            <p><a href="/memories/\(memory.id)">No, keep it</a></p></section>
            """)
    }

    /// The page after a memory was deleted.
    static func deleted(_ memory: HubMemory) -> String {
        page(title: "Deleted: Memory Palace", body: """
            <section aria-labelledby="deleted-title"><h2 id="deleted-title">“\(escape(memory.title))” was deleted</h2>
            <p><a href="/memories">All memories</a></p></section>
            """)
    }
}
