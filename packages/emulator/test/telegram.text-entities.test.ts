import { describe, expect, it } from 'vitest'
import { TelegramError } from '../src/telegram'
import { formatMessageText, parseHtml, parseMarkdownV2 } from '../src/telegram/text-entities'

/**
 * Telegram's parse modes as the emulator applies them: the plain text and entities a message ends up
 * with, and the "can't parse entities" errors (UTF-8 byte offsets, as Telegram reports them).
 */

function parseError(run: () => unknown): string {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(TelegramError)
    return (error as TelegramError).description
  }
  throw new Error('expected a parse error')
}

describe('HTML', () => {
  it('turns tags into nested entities with UTF-16 offsets and decodes character references', () => {
    expect(
      parseHtml('🏈 <b>Chiefs <i>-3</i></b> &lt;2u&gt; &#8364;5 <u>u</u><s>s</s><tg-spoiler>x</tg-spoiler>'),
    ).toEqual({
      text: '🏈 Chiefs -3 <2u> €5 usx',
      entities: [
        { type: 'bold', offset: 3, length: 9 },
        { type: 'italic', offset: 10, length: 2 },
        { type: 'underline', offset: 21, length: 1 },
        { type: 'strikethrough', offset: 22, length: 1 },
        { type: 'spoiler', offset: 23, length: 1 },
      ],
    })
  })

  it('knows pre with a language, links and block quotes', () => {
    expect(
      parseHtml(
        '<pre><code class="language-ts">x</code></pre><a href="edgeclub.example">site</a><blockquote expandable>q</blockquote>',
      ),
    ).toEqual({
      text: 'xsiteq',
      entities: [
        { type: 'pre', offset: 0, length: 1, language: 'ts' },
        { type: 'text_link', offset: 1, length: 4, url: 'http://edgeclub.example/' },
        { type: 'expandable_blockquote', offset: 5, length: 1 },
      ],
    })
    // A link Telegram would not keep leaves the text without an entity.
    expect(parseHtml('<a href="javascript:alert(1)">x</a>').entities).toEqual([])
  })

  it('fails where Telegram fails, with byte offsets', () => {
    expect(parseError(() => parseHtml('€ <div>'))).toBe(
      `Bad Request: can't parse entities: Unsupported start tag "div" at byte offset 4`,
    )
    expect(parseError(() => parseHtml('<b>x</i>'))).toBe(
      `Bad Request: can't parse entities: Unmatched end tag at byte offset 4, expected "</b>", found "</i>"`,
    )
    expect(parseError(() => parseHtml('x</b>'))).toBe(
      `Bad Request: can't parse entities: Unexpected end tag at byte offset 1`,
    )
    expect(parseError(() => parseHtml('<span>x</span>'))).toBe(
      `Bad Request: can't parse entities: Tag "span" must have class "tg-spoiler" at byte offset 0`,
    )
    expect(parseError(() => parseHtml('a <b'))).toBe(
      `Bad Request: can't parse entities: Unclosed start tag at byte offset 2`,
    )
  })
})

describe('MarkdownV2', () => {
  it('reads the markup, escapes and links', () => {
    expect(
      parseMarkdownV2(
        '*bold _italic_* __under__ ~gone~ ||hidden|| [site](https://edgeclub.example/a\\)b) 2\\.5',
      ),
    ).toEqual({
      text: 'bold italic under gone hidden site 2.5',
      entities: [
        { type: 'bold', offset: 0, length: 11 },
        { type: 'italic', offset: 5, length: 6 },
        { type: 'underline', offset: 12, length: 5 },
        { type: 'strikethrough', offset: 18, length: 4 },
        { type: 'spoiler', offset: 23, length: 6 },
        { type: 'text_link', offset: 30, length: 4, url: 'https://edgeclub.example/a)b' },
      ],
    })
    expect(parseMarkdownV2('```python\nprint(1)\n```')).toEqual({
      text: 'print(1)\n',
      entities: [{ type: 'pre', offset: 0, length: 9, language: 'python' }],
    })
    expect(parseMarkdownV2('>quoted\nafter')).toEqual({
      text: 'quoted\nafter',
      entities: [{ type: 'blockquote', offset: 0, length: 6 }],
    })
  })

  it('fails on reserved characters and unclosed entities', () => {
    expect(parseError(() => parseMarkdownV2('Win! +2u'))).toBe(
      `Bad Request: can't parse entities: Character '!' is reserved and must be escaped with the preceding '\\'`,
    )
    expect(parseError(() => parseMarkdownV2('ok _open'))).toBe(
      `Bad Request: can't parse entities: Can't find end of Italic entity at byte offset 3`,
    )
    expect(parseError(() => parseMarkdownV2('[x](https://a.b'))).toBe(
      `Bad Request: can't parse entities: Can't find end of a URL at byte offset 4`,
    )
  })
})

describe('a message text', () => {
  it('is trimmed, must not be empty, and finds commands, links, mentions and hashtags', () => {
    expect(
      formatMessageText('  /links@edgeclub_demo_bot for @jordan_t #NFL see edgeclub.example/x  ', undefined),
    ).toEqual({
      text: '/links@edgeclub_demo_bot for @jordan_t #NFL see edgeclub.example/x',
      entities: [
        { type: 'bot_command', offset: 0, length: 24 },
        { type: 'mention', offset: 29, length: 9 },
        { type: 'hashtag', offset: 39, length: 4 },
        { type: 'url', offset: 48, length: 18 },
      ],
    })
    expect(parseError(() => formatMessageText('<b> </b>', 'HTML'))).toBe('Bad Request: message text is empty')
    expect(formatMessageText('x'.repeat(4096), undefined).text).toHaveLength(4096)
  })
})
