import { SYNTHETIC_MARK, SYNTHETIC_MEANING } from "../domain/airspace/synthetic";
import type { FlightState } from "../domain/flightState";
import { bboxOf, type Polygon, type Position } from "../domain/geojson";
import { type MapContext, mapLayers } from "../domain/map/layers";
import { type Frame, fitFrame, project } from "../domain/map/view";
import { TRAFFIC_CSS, TRAFFIC_SCRIPT, trafficSection } from "./liveTraffic";
import { mapLegend, renderLegend, renderMapSvg } from "./map/svg";

/**
 * The live flight page: no external assets, one inline script. It opens the flight's event stream
 * with its ticket (replaying everything kept, then live), and draws the area with the growing track
 * and a scale, the height above ground against the ceiling over the terrain profile (ground from a
 * grid sampled server-side from our elevation tiles), the latest speed, attitude and pressure, and
 * the conformance events as they come.
 */

export interface TerrainGrid {
  south: number;
  west: number;
  north: number;
  east: number;
  rows: number;
  cols: number;
  /** Row-major from the south-west corner; null where no elevation is loaded. */
  values: (number | null)[];
}

export interface LivePageModel {
  flightId: string;
  area: Polygon;
  /** Meters above ground; null when the flight has none. */
  ceiling: number | null;
  startTime: string;
  endTime: string;
  /** The flight's state when the page was drawn; the script moves it on with the clock. */
  state: FlightState;
  ticket: string;
  terrain: TerrainGrid | null;
  /** The shared map, drawn here; the script adds the track in its projection. */
  map: LiveMap;
  /** The traffic broker's WebSocket URL, for nearby traffic (liveTraffic.ts); none without one. */
  trafficUrl?: string | null;
}

export interface LiveMap {
  svg: string;
  /** The legend under the map (HTML). */
  legend: string;
  projection: { x0: number; y0: number; scale: number; xScale: number };
  /** Whether it shows generated cells or zones, which the page then explains. */
  synthetic: boolean;
}

export function liveFrame(area: Polygon): Frame {
  return fitFrame(bboxOf(area), { width: 600, aspect: 0.7, padding: 0.5, minSpanM: 2000 });
}

/**
 * The live map: the shared map around the area (padded by half its size, so a drone that strays is
 * still on it) with its context, and the projection the page's script draws the track with.
 */
export function liveMap(area: Polygon, context: MapContext): LiveMap {
  const frame = liveFrame(area);
  const at = (p: Position) => project(frame, p);
  const layers = mapLayers(frame, context, new Map(), "metric");
  const svg = renderMapSvg({
    layers,
    area: area.coordinates
      .map((r) => `${r.map((p, i) => `${i === 0 ? "M" : "L"}${at(p).x} ${at(p).y}`).join(" ")} Z`)
      .join(" "),
    markers: [],
    id: "map",
    title: "Flight area and track",
    track: true,
    scaleId: "scale",
  });
  const legend = renderLegend([
    ...mapLegend(layers),
    { color: "#d12f2f", style: "line", text: "track; dot: latest position" },
    {
      color: "#b42318",
      text: "conformance events where they happened, one number for each kind (green: back in conformance)",
    },
  ]);
  return {
    svg,
    legend,
    projection: { x0: frame.x0, y0: frame.y0, scale: frame.scale, xScale: frame.xScale },
    synthetic: layers.cells.some((c) => c.synthetic) || layers.areas.some((a) => a.synthetic),
  };
}

const CSS = `
:root{color-scheme:light dark;--fg:#1b1f24;--bg:#f6f7f9;--card:#fff;--muted:#5b6470;--area:#1f6feb;--track:#d12f2f;--bad:#b42318;--ok:#1a7f37}
@media (prefers-color-scheme:dark){:root{--fg:#e6e9ee;--bg:#0f1216;--card:#181c22;--muted:#9aa4b2}}
*{box-sizing:border-box}body{margin:0;font:15px/1.4 system-ui,sans-serif;color:var(--fg);background:var(--bg)}
header{padding:12px 16px;display:flex;flex-wrap:wrap;gap:8px 16px;align-items:baseline}
h1{font-size:18px;margin:0}#status{color:var(--muted)}#status.bad{color:var(--bad)}
.chip{display:inline-block;padding:1px 10px;border-radius:999px;font-weight:600;font-size:14px}
.chip.planned{background:#dbeafe;color:#1e3a8a}.chip.active{background:#dcfce7;color:#14532d}.chip.ended{background:#e5e7eb;color:#374151}
main{display:grid;gap:12px;padding:0 12px 16px;grid-template-columns:minmax(0,3fr) minmax(0,2fr)}
@media (max-width:800px){main{grid-template-columns:1fr}}
section{background:var(--card);border-radius:8px;padding:10px 12px;box-shadow:0 1px 2px #0002}
h2{font-size:14px;margin:0 0 6px;color:var(--muted);font-weight:600}
svg{width:100%;height:auto;display:block}
dl{display:grid;grid-template-columns:auto 1fr;gap:2px 12px;margin:0}dt{color:var(--muted)}dd{margin:0;font-variant-numeric:tabular-nums}
ol{margin:0;padding-left:20px;max-height:280px;overflow:auto}li{margin:2px 0}
.left_area,.above_ceiling,.outside_time,.telemetry_lost{color:var(--bad)}.back_in_conformance{color:var(--ok)}
.legend{font-size:12px;color:var(--muted)}`;

export function renderLivePage(model: LivePageModel): string {
  const json = JSON.stringify({ ...model, map: { projection: model.map.projection } }).replace(
    /</g,
    "\\u003c",
  );
  const title = escapeHtml(pageTitle(model.state, model.startTime));
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="referrer" content="no-referrer"><title>${title}</title><style>${CSS}${TRAFFIC_CSS}</style></head><body>
<header><h1 id="title">${title}</h1><span id="flight-state" class="chip ${model.state}">${escapeHtml(stateText(model.state, model.startTime, model.endTime))}</span><span>connection: <span id="status" role="status">${model.state === "ended" ? "connecting to replay the recorded flight…" : "connecting…"}</span></span><span id="window" class="legend">planned ${escapeHtml(windowText(model.startTime, model.endTime))} · flight ${escapeHtml(model.flightId)}</span></header>
<main>
<section aria-labelledby="map-h"><h2 id="map-h">Area and track</h2>${model.map.svg}${model.map.legend}${model.map.synthetic ? `<p class="legend" id="synthetic-meaning">✱ ${SYNTHETIC_MARK}: ${escapeHtml(SYNTHETIC_MEANING)}</p>` : ""}</section>
${trafficSection(model.trafficUrl)}
<section aria-labelledby="latest-h"><h2 id="latest-h">Latest</h2><dl id="latest">
<dt>Records</dt><dd id="v-records">0</dd><dt>Last record</dt><dd id="v-last">–</dd>
<dt>Height above ground</dt><dd id="v-agl">–</dd><dt>Ceiling</dt><dd id="v-ceiling">–</dd>
<dt>Ground speed</dt><dd id="v-speed">–</dd><dt>Vertical speed</dt><dd id="v-vs">–</dd>
<dt>Attitude (yaw / pitch / roll)</dt><dd id="v-att">–</dd><dt>Pressure</dt><dd id="v-press">–</dd>
<dt>Conformance</dt><dd id="v-conf">–</dd></dl></section>
<section aria-labelledby="alt-h"><h2 id="alt-h">Altitude over the terrain</h2><svg id="alt" viewBox="0 0 600 260" role="img" aria-label="Altitude in meters above mean sea level against time in UTC: the drone, the ceiling and the ground below it"></svg>
<p class="legend">brown: ground below the track (our elevation data) · red: the drone (altitude_msl) · dashed: ceiling above ground · numbered: conformance events, one number for each kind</p></section>
<section aria-labelledby="ev-h"><h2 id="ev-h">Conformance events</h2><ol id="events"></ol>
<p id="downloads"${model.state === "ended" ? "" : " hidden"}>Download the track: ${(
    ["csv", "gpx", "kml"] as const
  )
    .map(
      (f) =>
        `<a id="track-${f}" href="/flight/v2/${encodeURIComponent(model.flightId)}/track?format=${f}&amp;ticket=${encodeURIComponent(model.ticket)}">${f.toUpperCase()}</a>`,
    )
    .join(" · ")}</p></section>
</main>
<script type="application/json" id="model">${json}</script>
<script>${SCRIPT}</script>${model.trafficUrl ? `<script>${TRAFFIC_SCRIPT}</script>` : ""}</body></html>`;
}

/** The chip's words for the flight's state; times are ISO UTC. */
function stateText(state: FlightState, start: string, end: string): string {
  if (state === "planned") return `planned: starts ${hhmm(start)} UTC`;
  if (state === "active") return `active until ${hhmm(end)} UTC`;
  return `ended at ${hhmm(end)} UTC`;
}

/** The page's title in words: what the flight is now, and its day. */
function pageTitle(state: FlightState, start: string): string {
  const what = state === "planned" ? "Planned flight" : state === "active" ? "Live flight" : "Ended flight";
  return `${what} of ${dayText(start)}`;
}

/** "28 Nov 2026", UTC. */
function dayText(iso: string): string {
  const d = new Date(iso);
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

function windowText(start: string, end: string): string {
  const sameDay = start.slice(0, 10) === end.slice(0, 10);
  return `${dayText(start)} ${hhmm(start)} – ${sameDay ? "" : `${dayText(end)} `}${hhmm(end)} UTC`;
}

function hhmm(iso: string): string {
  return iso.slice(11, 16);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** The page's whole behaviour; plain ES2020 so Debian's Chromium runs it as is. */
const SCRIPT = `
(function(){
"use strict";
var model=JSON.parse(document.getElementById("model").textContent);
var NS="http://www.w3.org/2000/svg";
var positions=[],events=[],count=0,latest={};
function $(id){return document.getElementById(id)}
function el(name,attrs,parent){var e=document.createElementNS(NS,name);for(var k in attrs)e.setAttribute(k,attrs[k]);if(parent)parent.appendChild(e);return e}
function fmt(v,d,u){return v==null||!isFinite(v)?"–":v.toFixed(d)+(u?" "+u:"")}
// The flight's state (planned / active / ended) from its times and the clock, apart from the connection.
var startMs=Date.parse(model.startTime),endMs=Date.parse(model.endTime);
function flightState(){var now=Date.now();return now<startMs?"planned":now<=endMs?"active":"ended"}
function hhmm(ms){return new Date(ms).toISOString().slice(11,16)}
function showState(){var s=flightState(),chip=$("flight-state");chip.className="chip "+s;
 chip.textContent=s==="planned"?"planned: starts "+hhmm(startMs)+" UTC":s==="active"?"active until "+hhmm(endMs)+" UTC":"ended at "+hhmm(endMs)+" UTC";
 $("downloads").hidden=s!=="ended";
 var title=$("title").textContent.replace(/^S+ flight/,s==="planned"?"Planned flight":s==="active"?"Live flight":"Ended flight");$("title").textContent=title;document.title=title;return s}
showState();setInterval(showState,10000);
$("v-ceiling").textContent=model.ceiling==null?"none":model.ceiling+" m above ground";
// Ground below a position, bilinear in the grid sampled from our elevation tiles; null where none.
function ground(lat,lng){var t=model.terrain;if(!t)return null;
 var y=(lat-t.south)/(t.north-t.south)*(t.rows-1),x=(lng-t.west)/(t.east-t.west)*(t.cols-1);
 if(y<0||x<0||y>t.rows-1||x>t.cols-1)return null;
 var r=Math.min(Math.floor(y),t.rows-2),c=Math.min(Math.floor(x),t.cols-2),ty=y-r,tx=x-c,s=0;
 for(var dr=0;dr<2;dr++)for(var dc=0;dc<2;dc++){var v=t.values[(r+dr)*t.cols+c+dc];var w=(dr?ty:1-ty)*(dc?tx:1-tx);if(w===0)continue;if(v==null)return null;s+=w*v}
 return s}
// The map around the area is drawn by the server; the track goes on top in the same projection.
var proj=model.map.projection;
function px(lng,lat){return[((lng*proj.xScale-proj.x0)*proj.scale).toFixed(1),((-lat-proj.y0)*proj.scale).toFixed(1)]}
// Where an event happened: its own position, else (telemetry lost) the last position before it.
function eventPlace(e){if(e.latitude!=null)return{latitude:e.latitude,longitude:e.longitude};var t=Date.parse(e.at),p=null;
 for(var i=0;i<positions.length&&positions[i].timestamp<=t;i++)p=positions[i];return p}
// Events are grouped by type: one list item, one number, however often it repeats.
var groups=[];function groupOf(type){for(var i=0;i<groups.length;i++)if(groups[i].type===type)return i;return -1}
function drawMap(){var svg=$("track");while(svg.firstChild)svg.removeChild(svg.firstChild);
 // Markers first, as rings, and one per group within 14 px: the track is drawn over them, never hidden.
 var placed=[];events.forEach(function(e){var p=eventPlace(e);if(!p)return;var q=px(p.longitude,p.latitude),n=groupOf(e.type)+1;
  if(placed.some(function(o){return o.n===n&&Math.hypot(o.x-q[0],o.y-q[1])<14}))return;placed.push({n:n,x:+q[0],y:+q[1]});
  var g=el("g",{"class":"event-marker "+e.type,transform:"translate("+q[0]+" "+q[1]+")"},svg);
  var t=el("title",{},g);t.textContent=n+". "+e.type.replace(/_/g," ")+" at "+e.at.slice(11,19)+" UTC";
  el("circle",{r:7,fill:"none",stroke:e.type==="back_in_conformance"?"#1a7f37":"#b42318","stroke-width":2.5},g);
  var l=el("text",{x:9,y:-7,"font-size":11,fill:e.type==="back_in_conformance"?"#1a7f37":"#b42318","font-weight":700,stroke:"#fff","stroke-width":3,"paint-order":"stroke"},g);l.textContent=String(n)});
 if(positions.length){el("polyline",{points:positions.map(function(p){return px(p.longitude,p.latitude).join(",")}).join(" "),fill:"none",stroke:"#d12f2f","stroke-width":2},svg);
  var last=positions[positions.length-1],q=px(last.longitude,last.latitude);el("circle",{cx:q[0],cy:q[1],r:5,fill:"#d12f2f",id:"latest-dot"},svg)}}
// Round steps for an axis: about n ticks between lo and hi.
function ticks(lo,hi,n){var raw=(hi-lo)/n,p=Math.pow(10,Math.floor(Math.log10(raw))),f=raw/p,step=(f<1.5?1:f<3.5?2:f<7.5?5:10)*p,out=[];
 for(var v=Math.ceil(lo/step)*step;v<=hi;v+=step)out.push(v);return{values:out,step:step}}
function drawAlt(){var svg=$("alt");while(svg.firstChild)svg.removeChild(svg.firstChild);
 var L=58,R=590,T=10,B=214;
 el("path",{d:"M"+L+" "+T+"V"+B+"H"+R,fill:"none",stroke:"currentColor","stroke-width":1},svg);
 var yt=el("text",{x:12,y:(T+B)/2,"font-size":11,fill:"currentColor","text-anchor":"middle",transform:"rotate(-90 12 "+(T+B)/2+")"},svg);yt.textContent="Altitude (m above mean sea level)";
 var xt=el("text",{x:(L+R)/2,y:254,"font-size":11,fill:"currentColor","text-anchor":"middle"},svg);xt.textContent="Time (UTC)";
 if(!positions.length)return;var t0=positions[0].timestamp,t1=Math.max(positions[positions.length-1].timestamp,t0+1000);
 var vals=[];positions.forEach(function(p){vals.push(p.altitude_msl);if(p.ground!=null){vals.push(p.ground);if(model.ceiling!=null)vals.push(p.ground+model.ceiling)}});
 var lo=Math.min.apply(null,vals)-10,hi=Math.max.apply(null,vals)+10;
 function X(t){return(L+(t-t0)/(t1-t0)*(R-L)).toFixed(1)}function Y(v){return(B-(v-lo)/(hi-lo)*(B-T)).toFixed(1)}
 ticks(lo,hi,5).values.forEach(function(v){var y=Y(v);el("path",{d:"M"+(L-4)+" "+y+"H"+R,stroke:"currentColor","stroke-opacity":0.15},svg);
  var tx=el("text",{x:L-6,y:+y+4,"font-size":10,fill:"currentColor","text-anchor":"end","class":"y-tick"},svg);tx.textContent=Math.round(v)+" m"});
 var span=(t1-t0)/1000,steps=[1,2,5,10,15,30,60,120,300,600,900,1800,3600,7200],st=steps.find(function(s){return span/s<=6})||14400;
 for(var s=Math.ceil(t0/1000/st)*st;s*1000<=t1;s+=st){var x=X(s*1000);el("path",{d:"M"+x+" "+B+"v4",stroke:"currentColor"},svg);
  var tt=el("text",{x:x,y:B+16,"font-size":10,fill:"currentColor","text-anchor":"middle","class":"x-tick"},svg);tt.textContent=new Date(s*1000).toISOString().slice(11,st<60?19:16)}
 var g=positions.filter(function(p){return p.ground!=null});
 if(g.length){el("polygon",{points:g.map(function(p){return X(p.timestamp)+","+Y(p.ground)}).join(" ")+" "+X(g[g.length-1].timestamp)+","+B+" "+X(g[0].timestamp)+","+B,fill:"#8b5a2b66",stroke:"#8b5a2b"},svg);
  if(model.ceiling!=null)el("polyline",{points:g.map(function(p){return X(p.timestamp)+","+Y(p.ground+model.ceiling)}).join(" "),fill:"none",stroke:"currentColor","stroke-dasharray":"6 4"},svg)}
 el("polyline",{points:positions.map(function(p){return X(p.timestamp)+","+Y(p.altitude_msl)}).join(" "),fill:"none",stroke:"#d12f2f","stroke-width":2},svg);
 // Every event's line; its group's number only where it does not touch the previous label.
 var lastLabel=-Infinity;events.forEach(function(e){var t=Date.parse(e.at);if(t<t0||t>t1)return;var x=X(t),ok=e.type==="back_in_conformance";
  el("path",{d:"M"+x+" "+T+"V"+B,stroke:ok?"#1a7f37":"#b42318","stroke-dasharray":"2 3"},svg);
  var label=String(groupOf(e.type)+1);if(x-lastLabel<8*label.length+6)return;lastLabel=+x;
  var n=el("text",{x:x,y:T+8,"font-size":10,fill:ok?"#1a7f37":"#b42318","text-anchor":"middle","class":"event-tick"},svg);n.textContent=label})}
var pending=false;function redraw(){if(pending)return;pending=true;requestAnimationFrame(function(){pending=false;drawMap();drawAlt()})}
function onRecord(r){count++;$("v-records").textContent=String(count);$("v-last").textContent=new Date(r.timestamp).toISOString().slice(11,19)+" UTC";
 if(r.type==="position"){r.ground=ground(r.latitude,r.longitude);positions.push(r);
  $("v-agl").textContent=r.ground==null?"unknown (no elevation loaded here)":fmt(r.altitude_msl-r.ground,1,"m");redraw()}
 else if(r.type==="speed"){$("v-speed").textContent=fmt(Math.hypot(r.velocity_x,r.velocity_y),1,"m/s");$("v-vs").textContent=fmt(-r.velocity_z,1,"m/s")}
 else if(r.type==="attitude"){$("v-att").textContent=fmt(r.yaw,0,"°")+" / "+fmt(r.pitch,0,"°")+" / "+fmt(r.roll,0,"°")}
 else if(r.type==="barometer"){$("v-press").textContent=fmt(r.pressure,1,"hPa")}}
function eventDetail(e){return(e.type==="above_ceiling"?" ("+e.height_agl+" m above ground, ceiling "+e.ceiling+" m)":e.type==="left_area"?" ("+e.distance_m+" m outside)":"")+(e.elevation?" – "+e.elevation:"")}
function onConformance(e){events.push(e);var i=groupOf(e.type);
 if(i<0){i=groups.length;var li=document.createElement("li");li.className=e.type;$("events").appendChild(li);groups.push({type:e.type,li:li,times:[]})}
 var g=groups[i];g.times.push(e.at.slice(11,19));var words=e.type.replace(/_/g," ");
 g.li.textContent=g.times.length===1?g.times[0]+" UTC "+words+eventDetail(e):words+" ×"+g.times.length+": first "+g.times[0]+", last "+g.times[g.times.length-1]+" UTC"+eventDetail(e);
 g.li.title=g.times.join(", ");
 $("v-conf").textContent=e.type==="back_in_conformance"?"in conformance":words;$("v-conf").className=e.type;redraw()}
var url="/flight/v2/"+encodeURIComponent(model.flightId)+"/telemetry/stream?ticket="+encodeURIComponent(model.ticket)+"&last_event_id=0";
var source=new EventSource(url);
source.addEventListener("open",function(){$("status").textContent=flightState()==="ended"?"open (the flight has ended: its recorded track is replayed)":"live";$("status").className=""});
source.addEventListener("record",function(m){onRecord(JSON.parse(m.data))});
source.addEventListener("conformance",function(m){onConformance(JSON.parse(m.data))});
source.addEventListener("error",function(){$("status").textContent=source.readyState===2?"disconnected: reload the page for a new ticket":"reconnecting…";$("status").className="bad"});
redraw();
})();`;

/**
 * Every inline script the page runs, as its text: the Content-Security-Policy allows each by its
 * hash (worker/pages/scriptHash.ts). A script added to the page is added here.
 */
export const LIVE_PAGE_SCRIPTS: readonly string[] = [SCRIPT, TRAFFIC_SCRIPT];
