import type { MessageEntity } from '@grammyjs/types'
import { badRequest } from './errors'

/**
 * What Telegram does with a message's text: parse HTML or MarkdownV2 (parse_mode) into plain text
 * plus entities, failing with "can't parse entities: ..." where Telegram fails, then detect the
 * entities it finds by itself (bot commands, URLs, @mentions, #hashtags). The rules and error texts
 * follow TDLib's parse_html and parse_markdown_v2 (td/telegram/MessageEntity.cpp); offsets are in
 * UTF-16 code units like the Bot API's, and error positions in UTF-8 bytes like Telegram's.
 */

export interface FormattedText {
  text: string
  entities: MessageEntity[]
}

/** Telegram's limit for a text message, counted after the markup is parsed. */
export const MAX_MESSAGE_LENGTH = 4096

const byteOffset = (text: string, index: number) => Buffer.byteLength(text.slice(0, index), 'utf8')
const parseError = (message: string) => badRequest(`can't parse entities: ${message}`)
const isSpace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\r' || c === '\n'

/**
 * Telegram's link check (TDLib's LinkManager::check_link): tg:// and ton:// links, or web links with a
 * host that has a dot in it (so http://localhost is refused; a bare host gets http://). Answers the
 * link as Telegram keeps it, or why it is refused.
 */
export function checkLink(raw: string): { url: string } | { error: string } {
  const link = raw.trim()
  const special = /^(tg|ton|tonsite):(?:\/\/)?(.*)$/i.exec(link)
  if (special) {
    const [, scheme = '', rest = ''] = special
    const host = rest.split(/[/?#]/)[0] ?? ''
    if (host === '') return { error: 'URL host is empty' }
    if (!/^[A-Za-z0-9_.-]+$/.test(host)) return { error: 'Unallowed characters in URL host' }
    return { url: `${scheme.toLowerCase()}://${rest}` }
  }
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(link) ? link : `http://${link}`
  const scheme = withScheme.slice(0, withScheme.indexOf(':')).toLowerCase()
  if (scheme !== 'http' && scheme !== 'https') return { error: 'Unsupported URL protocol' }
  if (!URL.canParse(withScheme)) return { error: 'Wrong HTTP URL' }
  const url = new URL(withScheme)
  if (url.hostname === '') return { error: 'URL host is empty' }
  if (!url.hostname.includes('.') && !url.hostname.startsWith('[')) return { error: 'Wrong HTTP URL' }
  return { url: url.href }
}

/** The link a text_link entity keeps, or undefined when Telegram would drop the entity. */
export function checkedLink(raw: string): string | undefined {
  if (raw.trim() === '' || /\s/.test(raw.trim())) return undefined
  const checked = checkLink(raw)
  return 'url' in checked ? checked.url : undefined
}

function sortEntities(entities: MessageEntity[]): MessageEntity[] {
  return entities.sort((a, b) => a.offset - b.offset || b.length - a.length)
}

// ---- HTML ------------------------------------------------------------------------------------------

const HTML_TAGS = new Set([
  'a',
  'b',
  'strong',
  'i',
  'em',
  's',
  'strike',
  'del',
  'u',
  'ins',
  'tg-spoiler',
  'tg-emoji',
  'tg-time',
  'span',
  'pre',
  'code',
  'blockquote',
])

/** `&lt;` `&gt;` `&amp;` `&quot;` and numeric references; anything else stays as typed. */
function decodeEntity(text: string, at: number): { value: string; end: number } | undefined {
  let end = at + 1
  let code = 0
  if (text[end] === '#') {
    end += 1
    const hex = text[end] === 'x'
    if (hex) end += 1
    const start = end
    while (end < text.length && (hex ? /[0-9a-f]/i : /[0-9]/).test(text[end] ?? '')) end += 1
    if (end === start) return undefined
    code = Number.parseInt(text.slice(start, end), hex ? 16 : 10)
    if (code === 0 || code >= 0x10ffff || end - at >= 10 || (code >= 0xd800 && code <= 0xdfff))
      return undefined
  } else {
    while (end < text.length && /[a-z]/i.test(text[end] ?? '')) end += 1
    const name = text.slice(at + 1, end)
    const named: Record<string, number> = { lt: 60, gt: 62, amp: 38, quot: 34 }
    const found = named[name]
    if (found === undefined) return undefined
    code = found
  }
  if (text[end] === ';') end += 1
  return { value: String.fromCodePoint(code), end }
}

interface OpenTag {
  tag: string
  argument: string
  offset: number
}

export function parseHtml(input: string): FormattedText {
  let out = ''
  const entities: MessageEntity[] = []
  const open: OpenTag[] = []
  // A language on a bare <code> only matters when a <pre> closes around it.
  const codeLanguages = new WeakMap<MessageEntity, string>()
  let i = 0
  while (i < input.length) {
    const c = input[i]
    if (c === '&') {
      const decoded = decodeEntity(input, i)
      if (decoded) {
        out += decoded.value
        i = decoded.end
        continue
      }
    }
    if (c !== '<') {
      out += c
      i += 1
      continue
    }
    const begin = i
    i += 1
    if (input[i] !== '/') {
      while (i < input.length && !isSpace(input[i]) && input[i] !== '>') i += 1
      if (i >= input.length) throw parseError(`Unclosed start tag at byte offset ${byteOffset(input, begin)}`)
      const tag = input.slice(begin + 1, i).toLowerCase()
      if (!HTML_TAGS.has(tag))
        throw parseError(`Unsupported start tag "${tag}" at byte offset ${byteOffset(input, begin)}`)
      let argument = ''
      while (input[i] !== '>') {
        while (i < input.length && isSpace(input[i])) i += 1
        if (input[i] === '>') break
        const nameStart = i
        while (i < input.length && !isSpace(input[i]) && !'=>/"\''.includes(input[i] ?? '')) i += 1
        const attribute = input.slice(nameStart, i)
        if (attribute === '')
          throw parseError(
            `Empty attribute name in the tag "${tag}" at byte offset ${byteOffset(input, begin)}`,
          )
        while (i < input.length && isSpace(input[i])) i += 1
        if (input[i] !== '=') {
          if (i >= input.length)
            throw parseError(`Unclosed start tag "${tag}" at byte offset ${byteOffset(input, begin)}`)
          if (tag === 'blockquote' && attribute === 'expandable') argument = '1'
          continue
        }
        i += 1
        while (i < input.length && isSpace(input[i])) i += 1
        if (i >= input.length)
          throw parseError(`Unclosed start tag "${tag}" at byte offset ${byteOffset(input, begin)}`)
        let value = ''
        const quote = input[i]
        if (quote !== '"' && quote !== "'") {
          const tokenStart = i
          while (i < input.length && /[A-Za-z0-9.-]/.test(input[i] ?? '')) i += 1
          value = input.slice(tokenStart, i).toLowerCase()
          if (!isSpace(input[i]) && input[i] !== '>')
            throw parseError(`Unexpected end of name token at byte offset ${byteOffset(input, tokenStart)}`)
        } else {
          i += 1
          while (i < input.length && input[i] !== quote) {
            const decoded = input[i] === '&' ? decodeEntity(input, i) : undefined
            if (decoded) {
              value += decoded.value
              i = decoded.end
            } else {
              value += input[i]
              i += 1
            }
          }
          if (input[i] === quote) i += 1
        }
        if (i >= input.length)
          throw parseError(`Unclosed start tag at byte offset ${byteOffset(input, begin)}`)
        if (tag === 'a' && attribute === 'href') argument = value
        else if (tag === 'code' && attribute === 'class' && value.startsWith('language-'))
          argument = value.slice('language-'.length)
        else if (tag === 'span' && attribute === 'class' && value.startsWith('tg-')) argument = value.slice(3)
        else if (tag === 'tg-emoji' && attribute === 'emoji-id') argument = value
        else if (tag === 'blockquote' && attribute === 'expandable') argument = '1'
      }
      if (tag === 'span' && argument !== 'spoiler')
        throw parseError(`Tag "span" must have class "tg-spoiler" at byte offset ${byteOffset(input, begin)}`)
      open.push({ tag, argument, offset: out.length })
      i += 1
      continue
    }
    const top = open.at(-1)
    if (!top) throw parseError(`Unexpected end tag at byte offset ${byteOffset(input, begin)}`)
    while (i < input.length && !isSpace(input[i]) && input[i] !== '>') i += 1
    const endTag = input.slice(begin + 2, i).toLowerCase()
    while (i < input.length && isSpace(input[i])) i += 1
    if (input[i] !== '>') throw parseError(`Unclosed end tag at byte offset ${byteOffset(input, begin)}`)
    if (endTag !== '' && endTag !== top.tag)
      throw parseError(
        `Unmatched end tag at byte offset ${byteOffset(input, begin)}, expected "</${top.tag}>", found "</${endTag}>"`,
      )
    closeHtmlTag(top, out, entities, codeLanguages)
    open.pop()
    i += 1
  }
  const unclosed = open.at(-1)
  if (unclosed) throw parseError(`Can't find end tag corresponding to start tag "${unclosed.tag}"`)
  return { text: out, entities: sortEntities(entities) }
}

function closeHtmlTag(
  top: OpenTag,
  out: string,
  entities: MessageEntity[],
  codeLanguages: WeakMap<MessageEntity, string>,
): void {
  const offset = top.offset
  const length = out.length - offset
  if (length <= 0) return
  const simple: Record<string, MessageEntity['type']> = {
    i: 'italic',
    em: 'italic',
    b: 'bold',
    strong: 'bold',
    s: 'strikethrough',
    strike: 'strikethrough',
    del: 'strikethrough',
    u: 'underline',
    ins: 'underline',
    'tg-spoiler': 'spoiler',
    span: 'spoiler',
  }
  const type = simple[top.tag]
  if (
    type === 'italic' ||
    type === 'bold' ||
    type === 'strikethrough' ||
    type === 'underline' ||
    type === 'spoiler'
  ) {
    entities.push({ type, offset, length })
    return
  }
  const last = entities.at(-1)
  switch (top.tag) {
    case 'tg-emoji': {
      if (!/^\d+$/.test(top.argument) || /^0+$/.test(top.argument))
        throw parseError('Invalid custom emoji identifier specified')
      entities.push({ type: 'custom_emoji', offset, length, custom_emoji_id: top.argument })
      return
    }
    case 'tg-time':
      // Date entities need a client to render; the emulator keeps the text only.
      return
    case 'a': {
      const url = checkedLink(top.argument === '' ? out.slice(offset) : top.argument)
      if (url) entities.push({ type: 'text_link', offset, length, url })
      return
    }
    case 'pre':
      if (
        last?.type === 'code' &&
        last.offset === offset &&
        last.length === length &&
        codeLanguages.has(last)
      ) {
        entities[entities.length - 1] = { type: 'pre', offset, length, language: codeLanguages.get(last) }
      } else entities.push({ type: 'pre', offset, length })
      return
    case 'code':
      if (last?.type === 'pre' && last.offset === offset && last.length === length && top.argument !== '') {
        entities[entities.length - 1] = { type: 'pre', offset, length, language: top.argument }
      } else {
        const entity: MessageEntity = { type: 'code', offset, length }
        if (top.argument !== '') codeLanguages.set(entity, top.argument)
        entities.push(entity)
      }
      return
    case 'blockquote':
      entities.push({ type: top.argument === '' ? 'blockquote' : 'expandable_blockquote', offset, length })
      return
  }
}

// ---- MarkdownV2 ------------------------------------------------------------------------------------

type MarkdownType =
  | 'Bold'
  | 'Italic'
  | 'Underline'
  | 'Strikethrough'
  | 'Spoiler'
  | 'TextUrl'
  | 'Code'
  | 'Pre'
  | 'PreCode'
  | 'CustomEmoji'
  | 'BlockQuote'

/** Entity types that carry nothing but their place in the text. */
type SimpleEntityType = MessageEntity.CommonMessageEntity['type'] | 'pre'

interface OpenEntity {
  type: MarkdownType
  argument: string
  offset: number
  byteAt: number
}

const RESERVED = '_*[]()~`>#+-=|{}.!\n'

export function parseMarkdownV2(input: string): FormattedText {
  let out = ''
  const entities: MessageEntity[] = []
  const open: OpenEntity[] = []
  let haveBlockquote = false
  let canStartBlockquote = true
  const reservedError = (at: number) =>
    parseError(`Character '${input[at]}' is reserved and must be escaped with the preceding '\\'`)
  const endError = (entity: OpenEntity) =>
    parseError(`Can't find end of ${entity.type} entity at byte offset ${entity.byteAt}`)

  for (let i = 0; i < input.length; i += 1) {
    const c = input[i] ?? ''
    const next = input.charCodeAt(i + 1)
    if (c === '\\' && next > 0 && next <= 126) {
      i += 1
      out += input[i]
      if (input[i] !== '\r') canStartBlockquote = input[i] === '\n'
      continue
    }
    const top = open.at(-1)
    const reserved =
      top && (top.type === 'Code' || top.type === 'Pre' || top.type === 'PreCode') ? '`' : RESERVED
    if (!reserved.includes(c)) {
      out += c
      if (c !== '\r') canStartBlockquote = false
      continue
    }
    const isEnd = (() => {
      if (!top) return false
      if (haveBlockquote && c === '\n' && (i + 1 === input.length || input[i + 1] !== '>')) return true
      switch (top.type) {
        case 'Bold':
          return c === '*'
        case 'Italic':
          return c === '_' && input[i + 1] !== '_'
        case 'Code':
          return c === '`'
        case 'Pre':
        case 'PreCode':
          return c === '`' && input[i + 1] === '`' && input[i + 2] === '`'
        case 'TextUrl':
        case 'CustomEmoji':
          return c === ']'
        case 'Underline':
          return c === '_' && input[i + 1] === '_'
        case 'Strikethrough':
          return c === '~'
        case 'Spoiler':
          return c === '|' && input[i + 1] === '|'
        case 'BlockQuote':
          return false
      }
    })()

    if (!isEnd) {
      const byteAt = byteOffset(input, i)
      let type: MarkdownType
      let argument = ''
      switch (c) {
        case '_':
          if (input[i + 1] === '_') {
            type = 'Underline'
            i += 1
          } else type = 'Italic'
          break
        case '*':
          type = 'Bold'
          break
        case '~':
          type = 'Strikethrough'
          break
        case '|':
          if (input[i + 1] !== '|') throw reservedError(i)
          i += 1
          type = 'Spoiler'
          break
        case '[':
          type = 'TextUrl'
          break
        case '`':
          if (input[i + 1] === '`' && input[i + 2] === '`') {
            i += 3
            type = 'Pre'
            let languageEnd = i
            while (languageEnd < input.length && !isSpace(input[languageEnd]) && input[languageEnd] !== '`')
              languageEnd += 1
            if (i !== languageEnd && languageEnd < input.length && input[languageEnd] !== '`') {
              type = 'PreCode'
              argument = input.slice(i, languageEnd)
              i = languageEnd
            }
            // One line break right after the opening fence is not part of the code.
            if (input[i] === '\n' || input[i] === '\r') {
              const pair = (input[i + 1] === '\n' || input[i + 1] === '\r') && input[i] !== input[i + 1]
              i += pair ? 2 : 1
            }
            i -= 1
          } else type = 'Code'
          break
        case '!':
          if (input[i + 1] !== '[') throw reservedError(i)
          i += 1
          type = 'CustomEmoji'
          break
        case '\n':
          out += '\n'
          canStartBlockquote = true
          continue
        case '>':
          if (!canStartBlockquote) throw reservedError(i)
          if (haveBlockquote) continue
          type = 'BlockQuote'
          haveBlockquote = true
          break
        default:
          throw reservedError(i)
      }
      open.push({ type, argument, offset: out.length, byteAt })
      continue
    }

    let current = top as OpenEntity
    let entityType: SimpleEntityType | undefined
    if (c === '\n' && current.type !== 'BlockQuote') {
      // `**>quote||` closes an expandable block quote: the spoiler marks sit right before the line break.
      if (current.type !== 'Spoiler' || current.byteAt !== byteOffset(input, i - 2)) throw endError(current)
      open.pop()
      const quote = open.at(-1)
      if (quote?.type !== 'BlockQuote') throw endError(current)
      current = quote
      entityType = 'expandable_blockquote'
    }
    let skip = out.length === current.offset
    let url: string | undefined
    let emojiId: string | undefined
    const length = out.length - current.offset
    switch (current.type) {
      case 'Underline':
      case 'Spoiler':
        i += 1
        break
      case 'Pre':
      case 'PreCode':
        i += 2
        break
      case 'TextUrl': {
        let target = ''
        if (input[i + 1] !== '(') target = out.slice(current.offset)
        else {
          i += 2
          const urlStart = i
          while (i < input.length && input[i] !== ')') {
            const escaped = input.charCodeAt(i + 1)
            if (input[i] === '\\' && escaped > 0 && escaped <= 126) {
              target += input[i + 1]
              i += 2
              continue
            }
            target += input[i]
            i += 1
          }
          if (input[i] !== ')')
            throw parseError(`Can't find end of a URL at byte offset ${byteOffset(input, urlStart)}`)
        }
        url = checkedLink(target)
        if (!url) skip = true
        break
      }
      case 'CustomEmoji': {
        if (input[i + 1] !== '(') throw parseError('The entity must contain a tg://emoji or tg://time URL')
        i += 2
        const urlStart = i
        let target = ''
        while (i < input.length && input[i] !== ')') {
          target += input[i]
          i += 1
        }
        if (input[i] !== ')')
          throw parseError(`Can't find end of a URL at byte offset ${byteOffset(input, urlStart)}`)
        emojiId = /^tg:\/\/emoji\?id=(\d+)$/.exec(target)?.[1]
        if (!emojiId) throw parseError('Invalid tg://emoji or tg://time URL specified')
        break
      }
      case 'BlockQuote':
        haveBlockquote = false
        out += c
        canStartBlockquote = true
        skip = length === 0
        break
      default:
        break
    }
    if (!skip) {
      const offset = current.offset
      if (emojiId) entities.push({ type: 'custom_emoji', offset, length, custom_emoji_id: emojiId })
      else if (url) entities.push({ type: 'text_link', offset, length, url })
      else if (current.type === 'PreCode')
        entities.push({ type: 'pre', offset, length, language: current.argument })
      else if (current.type !== 'TextUrl' && current.type !== 'CustomEmoji')
        entities.push({ type: entityType ?? SIMPLE_TYPES[current.type], offset, length })
    }
    open.pop()
  }
  if (haveBlockquote) {
    let type: SimpleEntityType = 'blockquote'
    const last = open.at(-1)
    if (last?.type === 'Spoiler' && last.byteAt === Buffer.byteLength(input) - 2) {
      open.pop()
      type = 'expandable_blockquote'
    }
    const quote = open.at(-1)
    if (quote?.type === 'BlockQuote') {
      const length = out.length - quote.offset
      if (length > 0) entities.push({ type, offset: quote.offset, length })
      open.pop()
    }
  }
  const unclosed = open.at(-1)
  if (unclosed) throw endError(unclosed)
  return { text: out, entities: sortEntities(entities) }
}

const SIMPLE_TYPES: Record<Exclude<MarkdownType, 'TextUrl' | 'CustomEmoji' | 'PreCode'>, SimpleEntityType> = {
  Bold: 'bold',
  Italic: 'italic',
  Underline: 'underline',
  Strikethrough: 'strikethrough',
  Spoiler: 'spoiler',
  Code: 'code',
  Pre: 'pre',
  BlockQuote: 'blockquote',
}

// ---- entities Telegram finds by itself -----------------------------------------------------------

const DETECTORS: Array<{ type: 'bot_command' | 'url' | 'mention' | 'hashtag' | 'email'; pattern: RegExp }> = [
  { type: 'bot_command', pattern: /(?<![\w/])\/[A-Za-z0-9_]{1,64}(?:@[A-Za-z0-9_]{3,32})?(?![\w/])/g },
  { type: 'email', pattern: /(?<![\w.+-])[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?![\w])/g },
  {
    type: 'url',
    pattern: /(?<![\w@/])(?:https?:\/\/)?(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,}(?::\d{1,5})?(?:[/?#][^\s]*)?/gi,
  },
  { type: 'url', pattern: /(?<![\w@/])https?:\/\/(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?(?:[/?#][^\s]*)?/gi },
  { type: 'mention', pattern: /(?<![\w@])@[A-Za-z][A-Za-z0-9_]{3,31}(?![\w@])/g },
  { type: 'hashtag', pattern: /(?<![\w#])#[\p{L}\p{N}_]*\p{L}[\p{L}\p{N}_]*/gu },
]

/**
 * Adds the entities Telegram detects in any text (a bot command, a link, a mention, a hashtag) where
 * no code, pre or link entity already covers the text, as clients and bots then see them.
 */
export function withDetectedEntities(formatted: FormattedText): FormattedText {
  const taken: Array<[number, number]> = formatted.entities
    .filter((entity) => ['code', 'pre', 'text_link', 'custom_emoji'].includes(entity.type))
    .map((entity) => [entity.offset, entity.offset + entity.length])
  const found: MessageEntity[] = []
  for (const { type, pattern } of DETECTORS) {
    for (const match of formatted.text.matchAll(pattern)) {
      let value = match[0]
      // Trailing punctuation ends a sentence, not the link.
      if (type === 'url') value = value.replace(/[.,;:!?)\]'"]+$/, '')
      const start = match.index
      const end = start + value.length
      if (value.length === 0 || taken.some(([from, to]) => start < to && end > from)) continue
      if (type === 'url' && !/^https?:\/\//i.test(value) && !/\.[a-z]{2,}(?:[:/?#]|$)/i.test(value)) continue
      taken.push([start, end])
      found.push({ type, offset: start, length: value.length })
    }
  }
  return { text: formatted.text, entities: sortEntities([...formatted.entities, ...found]) }
}

export type ParseMode = 'HTML' | 'MarkdownV2' | 'Markdown'

/**
 * The text and entities of a message as Telegram stores it, or a TelegramError with its words:
 * "unsupported parse_mode", "can't parse entities: ...", "message text is empty", "message is too long".
 */
export function formatMessageText(raw: string | undefined, parseMode: string | undefined): FormattedText {
  if (raw === undefined || raw === '') throw badRequest('message text is empty')
  if (Buffer.byteLength(raw) > 1 << 15) throw badRequest('text is too long')
  const mode = (parseMode ?? '').toLowerCase()
  let formatted: FormattedText
  if (mode === '' || mode === 'none') formatted = { text: raw, entities: [] }
  else if (mode === 'html') formatted = parseHtml(raw)
  else if (mode === 'markdownv2') formatted = parseMarkdownV2(raw)
  else if (mode === 'markdown') formatted = parseLegacyMarkdown(raw)
  else throw badRequest('unsupported parse_mode')
  // Telegram trims surrounding white space; entities keep their place in the trimmed text.
  const leading = formatted.text.length - formatted.text.trimStart().length
  const text = formatted.text.trim()
  if (text === '') throw badRequest('message text is empty')
  if ([...text].length > MAX_MESSAGE_LENGTH) throw badRequest('message is too long')
  const entities = formatted.entities
    .map((entity) => {
      const start = Math.max(0, entity.offset - leading)
      const end = Math.min(text.length, entity.offset - leading + entity.length)
      return { ...entity, offset: start, length: end - start }
    })
    .filter((entity) => entity.length > 0)
  return withDetectedEntities({ text, entities })
}

/** The legacy Markdown mode: *bold*, _italic_, `code`, ```pre```, [text](url); no nesting. */
function parseLegacyMarkdown(input: string): FormattedText {
  let out = ''
  const entities: MessageEntity[] = []
  for (let i = 0; i < input.length; i += 1) {
    const c = input[i] ?? ''
    if (!'_*`['.includes(c)) {
      out += c
      continue
    }
    const begin = i
    if (c === '[') {
      const close = input.indexOf(']', i + 1)
      if (close < 0 || input[close + 1] !== '(')
        throw parseError(`Can't find end of the entity starting at byte offset ${byteOffset(input, begin)}`)
      const urlEnd = input.indexOf(')', close + 2)
      if (urlEnd < 0)
        throw parseError(`Can't find end of the entity starting at byte offset ${byteOffset(input, begin)}`)
      const text = input.slice(i + 1, close)
      const url = checkedLink(input.slice(close + 2, urlEnd))
      if (url && text.length > 0)
        entities.push({ type: 'text_link', offset: out.length, length: text.length, url })
      out += text
      i = urlEnd
      continue
    }
    const fence = c === '`' && input.startsWith('```', i) ? '```' : c
    const close = input.indexOf(fence, i + fence.length)
    if (close < 0)
      throw parseError(`Can't find end of the entity starting at byte offset ${byteOffset(input, begin)}`)
    const text = input.slice(i + fence.length, close)
    const type: 'pre' | 'code' | 'bold' | 'italic' =
      fence === '```' ? 'pre' : c === '`' ? 'code' : c === '*' ? 'bold' : 'italic'
    if (text.length > 0) entities.push({ type, offset: out.length, length: text.length })
    out += text
    i = close + fence.length - 1
  }
  return { text: out, entities }
}
